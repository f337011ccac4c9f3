"""A MobileNetV2-style classifier quantized with eager-mode post-training static quantization for an
on-device compile job: Conv2d+BatchNorm2d are fused, but the ReLU6 activations stay separate modules and are
swapped for quantized ReLU6, so export fails with "Exporting the operator 'quantized::relu6' to ONNX opset
version 17 is not supported".

Source: https://github.com/qualcomm/ai-hub-models/issues/23
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "operators-46"


class ConvBNReLU6(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1):
        padding = (kernel_size - 1) // 2
        super().__init__(
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(out_planes),
            nn.ReLU6(inplace=True),
        )


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvBNReLU6(inp, hidden_dim, kernel_size=1))
        layers.extend([
            ConvBNReLU6(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            nn.BatchNorm2d(oup),
        ])
        self.conv = nn.Sequential(*layers)
        self.skip_add = nn.quantized.FloatFunctional()

    def forward(self, x):
        if self.use_res_connect:
            return self.skip_add.add(x, self.conv(x))
        return self.conv(x)


class QuantizableMobileNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.features = nn.Sequential(
            ConvBNReLU6(3, 16, stride=2),
            InvertedResidual(16, 16, 1, 1),
            InvertedResidual(16, 24, 2, 6),
            InvertedResidual(24, 24, 1, 6),
            ConvBNReLU6(24, 64, kernel_size=1),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(64, num_classes)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.features(x)
        x = self.pool(x).flatten(1)
        x = self.classifier(x)
        return self.dequant(x)

    def fuse_model(self):
        for m in self.modules():
            if isinstance(m, ConvBNReLU6):
                torch.quantization.fuse_modules(m, ["0", "1"], inplace=True)
            elif isinstance(m, InvertedResidual):
                n = len(m.conv)
                torch.quantization.fuse_modules(m.conv, [str(n - 2), str(n - 1)], inplace=True)


def make_model():
    model = QuantizableMobileNet().eval()
    model.fuse_model()
    torch.backends.quantized.engine = "qnnpack"
    model.qconfig = torch.quantization.get_default_qconfig("qnnpack")
    torch.quantization.prepare(model, inplace=True)
    with torch.no_grad():  # calibration
        model(torch.randn(8, 3, 64, 64))
    torch.quantization.convert(model, inplace=True)
    return model


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 64, 64),), (torch.randn(2, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
