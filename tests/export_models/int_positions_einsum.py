"""V-JEPA 2's rotary frequencies before transformers#39234: int64 positions times float32 frequencies in an
einsum. Eager promotes the positions to float32; both exporters write the Einsum on int64 and float
inputs, which onnxruntime refuses to load ("Type parameter (T) of Optype (Einsum) bound to different
types")."""
import torch
from torch import nn


class RotaryAngles(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("omega", 1.0 / 10000 ** (torch.arange(0, dim, 2).float() / dim))

    def forward(self, x):
        pos = torch.arange(x.shape[0])
        freq = torch.einsum("..., f -> ... f", pos, self.omega)
        return x * freq.cos().repeat_interleave(2, dim=-1)


def make_model():
    return RotaryAngles().eval()


def example_inputs():
    return (torch.randn(5, 8),)


def probe_inputs():
    return [(torch.randn(9, 8),), (torch.randn(2, 8),)]
