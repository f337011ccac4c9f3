"""One beam-search step of a seq2seq decoder that writes the best candidates with the out= form
`torch.topk(input, k, out=(res, value))`. The report's TorchScript export failed on it ("We don't have
an op for aten::topk but it isn't a special case"); the author found only the plain
`res, value = torch.topk(input, k)` form exports.

Source: https://github.com/onnx/onnx/issues/2648
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"log_probs": {0: "batch"}, "beam_scores": {0: "batch"}}
BLIND = "operators-35"


class BeamSearchStep(nn.Module):
    def __init__(self, beam_size=4):
        super().__init__()
        self.beam_size = beam_size

    def forward(self, log_probs, beam_scores):
        # log_probs: (batch, beam, vocab), beam_scores: (batch, beam)
        batch, beam, vocab = log_probs.shape
        scores = (log_probs + beam_scores.unsqueeze(-1)).view(batch, beam * vocab)
        res = torch.empty(0, dtype=scores.dtype)
        value = torch.empty(0, dtype=torch.long)
        torch.topk(scores, self.beam_size, out=(res, value))
        beam_origin = torch.div(value, vocab, rounding_mode="floor")
        tokens = value % vocab
        return res, beam_origin, tokens


def make_model():
    return BeamSearchStep().eval()


def example_inputs():
    return (torch.randn(2, 4, 50).log_softmax(-1), torch.randn(2, 4))


def other_inputs():
    return [(torch.randn(3, 4, 50).log_softmax(-1), torch.randn(3, 4)),
            (torch.randn(1, 4, 50).log_softmax(-1), torch.randn(1, 4))]


def probe_inputs():
    return other_inputs()
