"""ResNet-50 backbone bottleneck traced and quantized with FX graph mode (onednn backend config, so
the skip-add is fused into `QuantizedConvAddReLU2d` next to `QuantizedConvReLU2d` / `QuantizedConv2d`
downsample); exporting the quantized GraphModule with the dynamo-based ONNX exporter fails.

Source: https://github.com/pytorch/pytorch/issues/106748
"""
import torch
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.backend_config import get_onednn_backend_config
from torch.ao.quantization.quantize_fx import prepare_fx, convert_fx

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-6"


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        out = self.relu(out)
        return out


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        down = nn.Sequential(nn.Conv2d(64, 256, 1, bias=False), nn.BatchNorm2d(256))
        self.layer1 = nn.Sequential(Bottleneck(64, 64, down), Bottleneck(256, 64))

    def forward(self, x):
        return self.layer1(self.relu(self.bn1(self.conv1(x))))


def make_model():
    torch.backends.quantized.engine = "onednn"
    model = Backbone().eval()
    example = (torch.randn(1, 3, 32, 32),)
    prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), example,
                          backend_config=get_onednn_backend_config())
    for _ in range(4):  # calibration
        prepared(torch.randn(2, 3, 32, 32))
    return convert_fx(prepared, backend_config=get_onednn_backend_config())


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


def other_inputs():
    return [(torch.randn(2, 3, 32, 32),), (torch.randn(3, 3, 32, 32),)]


def probe_inputs():
    return other_inputs()
