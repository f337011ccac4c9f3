"""A single Conv2d statically quantized in eager mode (QuantStub -> Conv2d, calibrated with random data
and converted with the fbgemm qconfig); the report says the exported ONNX model's convolution result
differs from the quantized PyTorch model by plus or minus one quantization step in some positions
(and the dynamo exporter cannot trace the converted quantized module at all).

Source: https://github.com/pytorch/pytorch/issues/146541
"""
import torch
import torch.nn as nn
import torch.quantization

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-13"


class SingleConvModel(nn.Module):
    def __init__(self):
        super(SingleConvModel, self).__init__()
        # QuantStub will quantize the input.
        self.quant = torch.quantization.QuantStub()
        # A single 2D convolution layer.
        self.conv = nn.Conv2d(in_channels=3, out_channels=3, kernel_size=3, padding=1)
        # Note: We intentionally do NOT use a final DeQuantStub so that the output remains quantized.

    def forward(self, x):
        x = self.quant(x)
        x = self.conv(x)
        # the report compares the quantized values directly; they are read back as floats here so the
        # comparison sees the same one-step differences
        return x.dequantize()


def make_model():
    model = SingleConvModel()
    model.eval()  # Set to evaluation mode

    with torch.no_grad():
        model.conv.weight.copy_(torch.randn_like(model.conv.weight))
        if model.conv.bias is not None:
            model.conv.bias.copy_(torch.randn_like(model.conv.bias))

    model.qconfig = torch.quantization.get_default_qconfig("fbgemm")
    torch.quantization.prepare(model, inplace=True)
    # calibrate with random data
    for _ in range(10):
        model(torch.randn(1, 3, 32, 32))
    torch.quantization.convert(model, inplace=True)
    return model


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 24, 40),), (torch.randn(3, 3, 17, 29),)]


def probe_inputs():
    return other_inputs()
