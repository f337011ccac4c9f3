"""A detector-style Conv-BN-activation backbone whose activation is `nn.Threshold` (non-zero threshold);
the report (exported through an export script that prints "ONNX export failure: ...") says export fails with
"ONNX export failed: Couldn't export operator aten::threshold" (the legacy symbolic only handles
threshold == 0 / value == 0, i.e. plain ReLU).

Source: https://github.com/pytorch/pytorch/issues/51024
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-15"


class Conv(nn.Module):
    # Standard convolution: conv -> batchnorm -> activation
    def __init__(self, c1, c2, k=1, s=1):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, k // 2, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        self.act = nn.Threshold(0.1, 0.0)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Backbone(nn.Module):
    def __init__(self, ch=3, na=3, nc=4):
        super().__init__()
        self.stem = Conv(ch, 16, 3, 2)
        self.layer1 = Conv(16, 32, 3, 2)
        self.layer2 = Conv(32, 32, 1, 1)
        self.detect = nn.Conv2d(32, na * (nc + 5), 1)

    def forward(self, x):
        return self.detect(self.layer2(self.layer1(self.stem(x))))


def make_model():
    return Backbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(2, 3, 96, 128),), (torch.randn(3, 3, 48, 80),)]


def probe_inputs():
    return other_inputs()
