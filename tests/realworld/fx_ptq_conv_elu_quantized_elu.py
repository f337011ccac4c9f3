"""A small convolutional network with ELU activations is quantized with FX graph mode
(`quantize_fx.prepare_fx` -> calibration -> `quantize_fx.convert_fx`); the converted model prints and runs,
but ELU has become `quantized::elu` and the export fails with "Exporting the operator 'quantized::elu' to
ONNX opset version 14 is not supported".

Source: https://github.com/pytorch/pytorch/issues/90533
"""
import torch
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization import quantize_fx

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-46"


class ConvELUNet(nn.Module):
    def __init__(self, in_ch=3, width=16, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, width, 3, padding=1)
        self.act1 = nn.ELU()
        self.conv2 = nn.Conv2d(width, width * 2, 3, stride=2, padding=1)
        self.act2 = nn.ELU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width * 2, num_classes)

    def forward(self, x):
        x = self.act1(self.conv1(x))
        x = self.act2(self.conv2(x))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


def make_model():
    model = ConvELUNet().eval()
    example = (torch.randn(2, 3, 32, 32),)
    qconfig_mapping = get_default_qconfig_mapping("x86")
    model_prepared = quantize_fx.prepare_fx(model, qconfig_mapping, example)
    with torch.no_grad():  # calibration
        for _ in range(4):
            model_prepared(torch.randn(4, 3, 32, 32))
    model_quantized = quantize_fx.convert_fx(model_prepared.cpu())
    return model_quantized


def example_inputs():
    return (torch.randn(2, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 16, 48),)]


def probe_inputs():
    return other_inputs()
