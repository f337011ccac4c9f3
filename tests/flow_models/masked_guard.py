"""ONX601 on a guard around masked writes: pytorch-quantization's tensor_quant (CenterPoint's QAT
export), `if min_amax <= epsilon: zero_amax_mask = amax <= epsilon; scale[zero_amax_mask] = 0`,
and `if negative.any(): x[negative] = 0`. The dynamo exporter fails on the branch and the
legacy one freezes it. Where the test is false the mask selects nothing, so the `if` is dropped
and the writes always run (unsafe for the min() test: a NaN makes it false while other
elements may still be selected); ONX705 then writes through masked_fill_."""
import torch
from torch import nn


class FakeQuant(nn.Module):
    def forward(self, x: torch.Tensor, amax: torch.Tensor):
        negative = x < -2
        if negative.any():
            x[negative] = -2.0
        min_amax = amax.min()
        scale = 127.0 / amax
        epsilon = 1. / (1 << 24)
        if min_amax <= epsilon:
            zero_amax_mask = (amax <= epsilon)
            scale[zero_amax_mask] = 0
        return torch.clamp((x * scale).round(), -127, 127) / 127.0


def make_model():
    torch.manual_seed(0)
    return FakeQuant()


def example_inputs():
    return (torch.randn(4, 3), torch.tensor([0.5, 1.0, 2.0]))


def probe_inputs():
    return [(torch.randn(6, 3) * 3, torch.tensor([0.0, 1.0, 1e-9])), (torch.randn(2, 3), torch.tensor([1.0, 0.0, 3.0]))]


DYNAMIC = {0: {0: "batch"}}
