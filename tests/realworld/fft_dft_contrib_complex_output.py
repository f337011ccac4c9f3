"""Model whose forward is `torch.fft.fft(x)` on a real (batch, 1024) signal, returning the complex spectrum.
The reporter mapped fft to the onnxruntime contrib DFT op with a custom symbolic, and the export then died on
the ComplexFloat output ("RuntimeError: unexpected tensor scalar type"): complex results are not exportable.

Source: https://github.com/pytorch/pytorch/issues/59246
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-12"


class Model(torch.nn.Module):

    def forward(self, x):
        return torch.fft.fft(x)


def make_model():
    return Model()


def example_inputs():
    return (torch.randn(1, 1024),)


def other_inputs():
    return [(torch.randn(3, 1024),), (torch.randn(2, 1024),)]


def probe_inputs():
    return other_inputs()
