"""Complex-valued network in the complexPyTorch style: a ComplexLinear layer runs two real nn.Linear
(fc_r, fc_i) through an ApplyComplex module that returns `(fr(input.real)-fi(input.imag)).type(dtype)
+ 1j*(fr(input.imag)+fi(input.real)).type(dtype)`; the report exports it to ONNX and the model then
fails to load/run in onnxruntime.

Source: https://github.com/microsoft/onnxruntime/issues/23341
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"real": {0: "batch"}, "imag": {0: "batch"}}
BLIND = "operators-27"


class ApplyComplex(nn.Module):

    def __init__(self):
        super(ApplyComplex, self).__init__()

    def forward(self, fr, fi, input, dtype=torch.complex64):
        return (fr(input.real)-fi(input.imag)).type(dtype) \
                + 1j*(fr(input.imag)+fi(input.real)).type(dtype)


class ComplexLinear(nn.Module):

    def __init__(self, in_features, out_features):
        super(ComplexLinear, self).__init__()
        self.fc_r = nn.Linear(in_features, out_features)
        self.fc_i = nn.Linear(in_features, out_features)
        self.apply_complex = ApplyComplex()

    def forward(self, input):
        return self.apply_complex(self.fc_r, self.fc_i, input)


class SimpleComplexModel(nn.Module):

    def __init__(self):
        super(SimpleComplexModel, self).__init__()
        self.fc = ComplexLinear(16, 8)

    def forward(self, real, imag):
        input = torch.complex(real, imag)
        out = self.fc(input)
        return out.abs()


def make_model():
    return SimpleComplexModel().eval()


def example_inputs():
    return (torch.randn(2, 16), torch.randn(2, 16))


def other_inputs():
    return [(torch.randn(5, 16), torch.randn(5, 16)), (torch.randn(1, 16), torch.randn(1, 16))]


def probe_inputs():
    return other_inputs()
