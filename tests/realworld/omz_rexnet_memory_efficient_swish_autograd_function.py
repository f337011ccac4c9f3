"""ReXNet-v1 classifier (clovaai/rexnet): the default `USE_MEMORY_EFFICIENT_SWISH = True` routes every
Swish through a `torch.autograd.Function` (SwishJitImplementation) whose forward calls a
`@torch.jit.script` function, and the head returns `self.output(x).squeeze()`. OpenVINO's Open Model Zoo
patches both before its ONNX conversion (`USE_MEMORY_EFFICIENT_SWISH = False`, and `.squeeze()` ->
`.squeeze(-1).squeeze(-1)` because "MO can't convert ONNX files with unknown-dimension Squeeze ops"):
the custom autograd Function has no ONNX export path.

Source: https://github.com/openvinotoolkit/open_model_zoo/blob/master/models/public/rexnet-v1-x1.0/model.yml
"""
import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-51"

USE_MEMORY_EFFICIENT_SWISH = True

if USE_MEMORY_EFFICIENT_SWISH:
    @torch.jit.script
    def swish_fwd(x):
        return x.mul(torch.sigmoid(x))

    @torch.jit.script
    def swish_bwd(x, grad_output):
        x_sigmoid = torch.sigmoid(x)
        return grad_output * (x_sigmoid * (1. + x * (1. - x_sigmoid)))

    class SwishJitImplementation(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return swish_fwd(x)

        @staticmethod
        def backward(ctx, grad_output):
            x = ctx.saved_tensors[0]
            return swish_bwd(x, grad_output)

    def swish(x, inplace=False):
        return SwishJitImplementation.apply(x)
else:
    def swish(x, inplace=False):
        return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())


class Swish(nn.Module):
    def __init__(self, inplace=True):
        super(Swish, self).__init__()
        self.inplace = inplace

    def forward(self, x):
        return swish(x, self.inplace)


def ConvBNSwish(out, in_channels, channels, kernel=1, stride=1, pad=0, num_group=1):
    out.append(nn.Conv2d(in_channels, channels, kernel, stride, pad, groups=num_group, bias=False))
    out.append(nn.BatchNorm2d(channels))
    out.append(Swish())


class LinearBottleneck(nn.Module):
    def __init__(self, in_channels, channels, t, stride):
        super(LinearBottleneck, self).__init__()
        self.use_shortcut = stride == 1 and in_channels <= channels
        self.in_channels = in_channels
        dw_channels = in_channels * t
        out = []
        ConvBNSwish(out, in_channels=in_channels, channels=dw_channels)
        out += [nn.Conv2d(dw_channels, dw_channels, 3, stride, 1, groups=dw_channels, bias=False),
                nn.BatchNorm2d(dw_channels), nn.ReLU6(),
                nn.Conv2d(dw_channels, channels, 1, bias=False), nn.BatchNorm2d(channels)]
        self.out = nn.Sequential(*out)

    def forward(self, x):
        out = self.out(x)
        if self.use_shortcut:
            out[:, 0:self.in_channels] += x
        return out


class ReXNetV1(nn.Module):
    def __init__(self, classes=10, dropout_ratio=0.2, pen_channels=64):
        super(ReXNetV1, self).__init__()
        features = []
        ConvBNSwish(features, 3, 32, kernel=3, stride=2, pad=1)
        features.append(LinearBottleneck(32, 16, t=1, stride=1))
        features.append(LinearBottleneck(16, 27, t=6, stride=2))
        features.append(LinearBottleneck(27, 38, t=6, stride=1))
        ConvBNSwish(features, 38, pen_channels)
        features.append(nn.AdaptiveAvgPool2d(1))
        self.features = nn.Sequential(*features)
        self.output = nn.Sequential(
            nn.Dropout(dropout_ratio),
            nn.Conv2d(pen_channels, classes, 1, bias=True))

    def forward(self, x):
        x = self.features(x)
        x = self.output(x).squeeze()
        return x


def make_model():
    return ReXNetV1().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(4, 3, 48, 80),), (torch.randn(1, 3, 56, 56),)]


def probe_inputs():
    return other_inputs()
