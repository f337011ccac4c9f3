"""ONX601: an `assert` on a tensor value, Piper's spline flow (`assert (discriminant >= 0).all()`).
Dynamo fails on it; legacy drops it (harmless for valid inputs). Fixed by skipping the check while
exporting (`assert torch.onnx.is_in_onnx_export() or ...`)."""
import torch
from torch import nn


class SplineRoot(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor):
        discriminant = b.pow(2) + 4 * a.abs()
        assert (discriminant >= 0).all(), discriminant
        return (2 * a) / (-b - torch.sqrt(discriminant) - 1)


def make_model():
    return SplineRoot()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 5), torch.randn(2, 5))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 7), torch.randn(3, 7)), (torch.randn(4, 2) * 3, torch.randn(4, 2))]


DYNAMIC = {0: {0: "rows", 1: "bins"}, 1: {0: "rows", 1: "bins"}}
