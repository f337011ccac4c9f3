"""fairseq TransformerDecoder `buffered_future_mask`: the causal mask is cached on the module
(`self._future_mask`) and only rebuilt with `torch.triu` when the cached one is smaller than `dim =
tensor.size(0)`; if the decoder was already used before tracing, the trace keeps the cached mask as a constant
instead of the `triu`, giving an incorrect ONNX model.

Source: https://github.com/facebookresearch/fairseq/issues/4026
"""
import torch
from torch import nn

CLASS = "cross-call"
FAMILY = "control_flow"
DYNAMIC = {"prev_output_tokens": {0: "batch", 1: "tgt_len"}}
BLIND = "domains-2"


def fill_with_neg_inf(t):
    """FP16-compatible function that fills a tensor with -inf."""
    return t.float().fill_(float("-inf")).type_as(t)


class TransformerDecoderBase(nn.Module):
    def __init__(self, num_embeddings=50, embed_dim=16, num_heads=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(num_embeddings, embed_dim)
        self.self_attn = nn.MultiheadAttention(embed_dim, num_heads)
        self.output_projection = nn.Linear(embed_dim, num_embeddings)
        self._future_mask = torch.empty(0)

    def buffered_future_mask(self, tensor):
        dim = tensor.size(0)
        # self._future_mask.device != tensor.device is not working in TorchScript. This is a workaround.
        if (
            self._future_mask.size(0) == 0
            or (not self._future_mask.device == tensor.device)
            or self._future_mask.size(0) < dim
        ):
            self._future_mask = torch.triu(
                fill_with_neg_inf(torch.zeros([dim, dim])), 1
            )
        self._future_mask = self._future_mask.to(tensor)
        return self._future_mask[:dim, :dim]

    def forward(self, prev_output_tokens):
        x = self.embed_tokens(prev_output_tokens)
        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        self_attn_mask = self.buffered_future_mask(x)
        x, _ = self.self_attn(x, x, x, attn_mask=self_attn_mask, need_weights=False)
        # T x B x C -> B x T x C
        x = x.transpose(0, 1)
        return self.output_projection(x)


def make_model():
    model = TransformerDecoderBase().eval()
    with torch.no_grad():  # the decoder has been used (e.g. validated) before it is exported
        model(torch.randint(0, 50, (2, 10)))
    return model


def example_inputs():
    return (torch.randint(0, 50, (2, 7)),)


def other_inputs():
    return [(torch.randint(0, 50, (3, 16)),), (torch.randint(0, 50, (1, 4)),)]


def probe_inputs():
    return other_inputs()
