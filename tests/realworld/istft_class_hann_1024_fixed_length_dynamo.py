"""`torch.istft(spec, n_fft=1024, hop_length=512, window=self.window, length=144000)` in a module's
forward. The report's `torch.onnx.dynamo_export` always fails ("Could not guard on data-dependent
expression Eq(u0, 1)"), and torch._check / torch._check_is_size do not help.

Source: https://github.com/pytorch/pytorch/issues/135014
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {}   # the report exports one fixed (1, 513, 282) spectrogram
BLIND = "operators-32"


class istft_class(torch.nn.Module):
    def __init__(self):
        super(istft_class, self).__init__()

        self.window = torch.hann_window(1024).type(torch.FloatTensor)

    def forward(self, spec):

        output = torch.istft(
            spec,
            n_fft=1024,
            hop_length=512,
            window=self.window,
            length=144000,
        )

        return output


class ComplexSpecISTFT(nn.Module):
    """The report builds `spec = torch.complex(real_part, imaginary_part)` before calling the model."""

    def __init__(self):
        super().__init__()
        self.model = istft_class()

    def forward(self, real_part, imaginary_part):
        spec = torch.complex(real_part, imaginary_part)
        return self.model(spec)


def make_model():
    return ComplexSpecISTFT().eval()


def example_inputs():
    return (torch.randn(1, 513, 282, dtype=torch.float32), torch.randn(1, 513, 282, dtype=torch.float32))


def other_inputs():
    return [(torch.randn(1, 513, 282), torch.randn(1, 513, 282)),
            (torch.randn(1, 513, 282), torch.randn(1, 513, 282))]


def probe_inputs():
    return other_inputs()
