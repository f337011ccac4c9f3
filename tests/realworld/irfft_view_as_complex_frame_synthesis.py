"""Frame synthesis with `torch.fft.irfft(torch.view_as_complex(x), n=960)` (481 complex bins of a
960-sample frame stored as a real (..., 2) tensor): the report found that torch.onnx.dynamo_export
gave the wrong output shape for this irfft; on torch 2.13 the legacy exporter rejects the
`view_as_complex` the model uses to build the complex spectrum.

Source: https://github.com/pytorch/pytorch/issues/119360
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}
BLIND = "operators-4"


class iRFFTModel(nn.Module):
  def __init__(self):
      super().__init__()

  def forward(self, x):
    return torch.fft.irfft(torch.view_as_complex(x), n=960)


def make_model():
    return iRFFTModel()


def example_inputs():
    return (torch.rand(481, 2),)


def other_inputs():
    return [(torch.rand(481, 2),), (torch.randn(481, 2),)]


def probe_inputs():
    return other_inputs()
