"""Post-training static quantization of a conv + relu block with the fbgemm qconfig
(`torch.quantization.get_default_qconfig('fbgemm')`, per-channel weights), `prepare` / calibrate /
`convert`, then ONNX export; the report fails because the per-channel quantized conv weight cannot be
handled ("clone for quantized Tensor only works for PerTensorAffine scheme right now"). On torch 2.13
the TorchScript exporter handles it; the dynamo exporter still fails on the quantized conv.

Source: https://github.com/pytorch/pytorch/issues/52838
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-6"


class M(torch.nn.Module):
    def __init__(self):
        super(M, self).__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(1, 1, 1)
        self.relu = torch.nn.ReLU()
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.conv(x)
        x = self.relu(x)
        x = self.dequant(x)
        return x


def make_model():
    torch.backends.quantized.engine = "fbgemm"
    model_fp32 = M()
    model_fp32.eval()
    model_fp32.qconfig = torch.quantization.get_default_qconfig('fbgemm')
    model_fp32_prepared = torch.quantization.prepare(model_fp32, inplace=True)
    input_fp32 = torch.randn(4, 1, 4, 4)
    model_fp32_prepared(input_fp32)
    model_int8 = torch.quantization.convert(model_fp32_prepared)
    return model_int8


def example_inputs():
    return (torch.randn(4, 1, 4, 4),)


def other_inputs():
    return [(torch.randn(2, 1, 6, 5),), (torch.randn(1, 1, 9, 3),)]


def probe_inputs():
    return other_inputs()
