"""Attention through torch.library operators, as xformers and flash-attn register theirs: one
defined with `Library(...).define` and a Python kernel for every device (with an int output the
legacy exporter cannot type), one with `torch.library.custom_op` and a fake kernel. No exporter
translates them; their kernels are plain torch code."""
import torch
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}}


def _register():
    try:
        torch.ops.onnxfix_attn.scores.default
        return
    except AttributeError:
        pass
    library = torch.library.Library("onnxfix_attn", "DEF")
    library.define("scores(Tensor q, Tensor k, float scale) -> (Tensor, int)")

    def scores(q, k, scale):
        return torch.einsum("bmd,bnd->bmn", q, k) * scale, 0

    library.impl("scores", scores, "CompositeExplicitAutograd")
    _register.library = library  # the registration lives as long as the library object

    @torch.library.custom_op("onnxfix_attn::mix", mutates_args=())
    def mix(weights: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.bmm(weights.softmax(-1), v)

    @mix.register_fake
    def _(weights, v):
        return v.new_empty(weights.shape[0], weights.shape[1], v.shape[2])


class Attention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        _register()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights, _ = torch.ops.onnxfix_attn.scores(q, k, q.shape[-1] ** -0.5)
        return torch.ops.onnxfix_attn.mix(weights, v)


def make_model():
    torch.manual_seed(0)
    return Attention().eval()


def example_inputs():
    return (torch.rand(2, 5, 8),)


def probe_inputs():
    return [(torch.rand(3, 7, 8),), (torch.rand(1, 2, 8),)]
