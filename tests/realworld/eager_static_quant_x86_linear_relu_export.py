"""Eager-mode static quantization tutorial model (QuantStub -> Linear(4, 8) -> ReLU -> DeQuantStub)
prepared with the 'x86' default qconfig, calibrated and converted to int8; exporting the converted
model fails in `torch.export` (the dynamo ONNX exporter's first step) because the quantized linear
module and its packed params / quantized tensors cannot be traced.

Source: https://github.com/pytorch/pytorch/issues/137111
"""
import torch

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-6"


# define a floating point model where some layers could be statically quantized
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # QuantStub converts tensors from floating point to quantized
        self.quant = torch.ao.quantization.QuantStub()
        self.linear = torch.nn.Linear(4, 8)
        self.relu = torch.nn.ReLU()
        # DeQuantStub converts tensors from quantized to floating point
        self.dequant = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.linear(x)
        x = self.relu(x)
        x = self.dequant(x)
        return x


def make_model():
    model_fp32 = M()
    model_fp32.eval()
    model_fp32.qconfig = torch.ao.quantization.get_default_qconfig('x86')
    model_fp32_prepared = torch.ao.quantization.prepare(model_fp32)
    input_fp32 = torch.randn(1, 1, 4)
    model_fp32_prepared(input_fp32)
    model_int8 = torch.ao.quantization.convert(model_fp32_prepared)
    return model_int8


def example_inputs():
    return (torch.randn(2, 1, 4),)


def other_inputs():
    return [(torch.randn(5, 1, 4),), (torch.randn(1, 1, 4),)]


def probe_inputs():
    return other_inputs()
