"""Sub-8-bit fake quantization expressed as `torch.quantize_per_tensor(x, 1., 0, torch.qint8)`
followed by `.int_repr()` to get the raw int8 codes; the report: "Exporting the operator
'aten::int_repr' to ONNX opset version 16 is not supported" (quantize_per_tensor + int_repr + clamp
is the user's way to model low-bit quantization).

Source: https://github.com/pytorch/pytorch/issues/93345
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-5"


class Model(torch.nn.Module):
    def forward(self, x):
        y = torch.quantize_per_tensor(x, 1., 0, torch.qint8)
        return y.int_repr()


def make_model():
    return Model()


def example_inputs():
    return (torch.randn(1, 1, 28, 28) * 20,)


def other_inputs():
    return [(torch.randn(3, 1, 28, 28) * 20,), (torch.randn(2, 1, 28, 28) * 20,)]


def probe_inputs():
    return other_inputs()
