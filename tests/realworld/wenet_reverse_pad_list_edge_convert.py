"""WeNet right-to-left decoder scoring, converted for on-device (TFLite via ai-edge-torch/torch.export):
`reverse_pad_list` flips every hypothesis with `torch.flip(y.int()[:i], [0])` for `y, i in zip(ys_pad,
ys_lens)` and re-pads with `pad_sequence`; conversion fails with "Dynamic slicing on data-dependent
value is not supported".

Source: https://github.com/google-ai-edge/litert-torch/issues/168
"""
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"ys_pad": {0: "batch", 1: "tokens"}, "ys_lens": {0: "batch"}}
BLIND = "domains-8"


def reverse_pad_list(ys_pad: torch.Tensor,
                     ys_lens: torch.Tensor,
                     pad_value: float = -1.0) -> torch.Tensor:
    """Reverse padding for the list of tensors.

    Args:
        ys_pad (tensor): The padded tensor (B, Tokenmax).
        ys_lens (tensor): The lens of token seqs (B)
        pad_value (int): Value for padding.

    Returns:
        Tensor: Padded tensor (B, Tokenmax).
    """
    r_ys_pad = pad_sequence([(torch.flip(y.int()[:i], [0]))
                             for y, i in zip(ys_pad, ys_lens)], True,
                            pad_value)
    return r_ys_pad


class RightToLeftScorer(nn.Module):
    def __init__(self, vocab_size=32, d_model=16, ignore_id=-1):
        super().__init__()
        self.ignore_id = ignore_id
        self.eos = vocab_size - 1
        self.embed = nn.Embedding(vocab_size, d_model)
        self.rnn = nn.GRU(d_model, d_model, batch_first=True)
        self.output_layer = nn.Linear(d_model, vocab_size)

    def forward(self, ys_pad, ys_lens):
        r_ys_pad = reverse_pad_list(ys_pad, ys_lens, float(self.ignore_id))
        r_ys_in_pad = r_ys_pad.masked_fill(r_ys_pad == self.ignore_id, self.eos).long()
        x, _ = self.rnn(self.embed(r_ys_in_pad))
        return torch.log_softmax(self.output_layer(x), dim=-1)


def _hyps(lens, vocab=32):
    T = max(lens)
    ys = torch.full((len(lens), T), -1, dtype=torch.long)
    for b, n in enumerate(lens):
        ys[b, :n] = torch.randint(1, vocab - 1, (n,))
    return ys, torch.tensor(lens)


def make_model():
    return RightToLeftScorer().eval()


def example_inputs():
    return _hyps([5, 3, 4])


def other_inputs():
    return [_hyps([7, 7, 2, 6, 1]), _hyps([4, 2])]


def probe_inputs():
    return other_inputs()
