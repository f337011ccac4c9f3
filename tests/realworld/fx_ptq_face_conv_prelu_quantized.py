"""Face-recognition backbone stem (Conv2d 3->64 3x3 + PReLU, IR-style residual unit with PReLU)
quantized post-training with FX graph mode (`prepare_fx` / calibrate / `convert_fx`, fbgemm qconfig);
the converted graph holds `QuantizedPReLU` (`quantized::prelu`) and ONNX export fails with "cannot call
qscheme on UnknownQuantizer".

Source: https://github.com/pytorch/pytorch/issues/101091
"""
import torch
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import prepare_fx, convert_fx

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-6"


class IBasicBlock(nn.Module):
    def __init__(self, planes):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv1 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.prelu = nn.PReLU(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes)

    def forward(self, x):
        out = self.bn1(x)
        out = self.conv1(out)
        out = self.bn2(out)
        out = self.prelu(out)
        out = self.conv2(out)
        out = self.bn3(out)
        return out + x


class FaceNetStem(nn.Module):
    def __init__(self, emb=128):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.prelu = nn.PReLU(64)
        self.layer1 = IBasicBlock(64)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, emb)

    def forward(self, x):
        x = self.prelu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


def make_model():
    torch.backends.quantized.engine = "fbgemm"
    model = FaceNetStem().eval()
    example = (torch.randn(1, 3, 28, 28),)
    prepared = prepare_fx(model, get_default_qconfig_mapping("fbgemm"), example)
    for _ in range(8):  # calibration batches
        prepared(torch.randn(4, 3, 28, 28))
    return convert_fx(prepared)


def example_inputs():
    return (torch.randn(2, 3, 28, 28),)


def other_inputs():
    return [(torch.randn(3, 3, 28, 28),), (torch.randn(1, 3, 28, 28),)]


def probe_inputs():
    return other_inputs()
