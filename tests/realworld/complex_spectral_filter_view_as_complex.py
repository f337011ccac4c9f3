"""Spectral-domain layer with complex tensor computation: the (real, imag) input pairs and a learned
complex filter are turned into complex tensors with `torch.view_as_complex`, multiplied, and turned back
with `torch.view_as_real`; export fails with "Exporting the operator view_as_complex to ONNX opset
version 9 is not supported".

Source: https://github.com/pytorch/pytorch/issues/49793
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"spec": {0: "batch", 2: "frames"}}
BLIND = "operators-10"


class ComplexSpectralFilter(nn.Module):
    def __init__(self, n_freq=65):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_freq, 1, 2) * 0.1)

    def forward(self, spec):
        # spec: [B, F, T, 2] real/imag pairs (e.g. torch.stft(..., return_complex=False))
        z = torch.view_as_complex(spec.contiguous())
        w = torch.view_as_complex(self.weight)
        y = z * w
        return torch.view_as_real(y)


def make_model():
    return ComplexSpectralFilter()


def example_inputs():
    return (torch.randn(2, 65, 40, 2),)


def other_inputs():
    return [(torch.randn(3, 65, 17, 2),), (torch.randn(1, 65, 101, 2),)]


def probe_inputs():
    return other_inputs()
