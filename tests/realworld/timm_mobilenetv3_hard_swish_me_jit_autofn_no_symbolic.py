"""timm MobileNetV3 built with the memory-efficient activations (`hard_swish` -> `HardSwishMe`, the default
when the model is not created `exportable`): `HardSwishJitAutoFn` is a `torch.autograd.Function` around the
jit-scripted `hard_swish_jit_fwd`/`hard_swish_jit_bwd` with no `symbolic`, so torch.onnx.export stops at the
Python operator; the PR adds `symbolic(g, self)` = Add/Clip/Div/Mul. (Stem, one inverted-residual block and the
efficient head of mobilenetv3_large_100, random weights.)

Source: https://github.com/huggingface/pytorch-image-models/pull/401
"""
import torch
from torch import nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-56"


@torch.jit.script
def hard_swish_jit_fwd(x):
    return x * (x + 3).clamp(min=0, max=6).div(6.)


@torch.jit.script
def hard_swish_jit_bwd(x, grad_output):
    m = torch.ones_like(x) * (x >= 3.)
    m = torch.where((x >= -3.) & (x <= 3.),  x / 3. + .5, m)
    return grad_output * m


class HardSwishJitAutoFn(torch.autograd.Function):
    """A memory efficient, jit-scripted HardSwish activation"""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return hard_swish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return hard_swish_jit_bwd(x, grad_output)


def hard_swish_me(x, inplace=False):
    return HardSwishJitAutoFn.apply(x)


class HardSwishMe(nn.Module):
    def __init__(self, inplace: bool = False):
        super(HardSwishMe, self).__init__()

    def forward(self, x):
        return HardSwishJitAutoFn.apply(x)


class InvertedResidual(nn.Module):
    def __init__(self, in_chs, out_chs, dw_kernel_size=3, exp_ratio=4.0, act_layer=HardSwishMe):
        super().__init__()
        mid_chs = int(in_chs * exp_ratio)
        self.conv_pw = nn.Conv2d(in_chs, mid_chs, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(mid_chs)
        self.act1 = act_layer(inplace=True)
        self.conv_dw = nn.Conv2d(mid_chs, mid_chs, dw_kernel_size, padding=dw_kernel_size // 2, groups=mid_chs, bias=False)
        self.bn2 = nn.BatchNorm2d(mid_chs)
        self.act2 = act_layer(inplace=True)
        self.conv_pwl = nn.Conv2d(mid_chs, out_chs, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_chs)
        self.has_residual = in_chs == out_chs

    def forward(self, x):
        shortcut = x
        x = self.act1(self.bn1(self.conv_pw(x)))
        x = self.act2(self.bn2(self.conv_dw(x)))
        x = self.bn3(self.conv_pwl(x))
        if self.has_residual:
            x = x + shortcut
        return x


class MobileNetV3(nn.Module):
    def __init__(self, num_classes=10, stem_size=16, num_features=128, act_layer=HardSwishMe):
        super().__init__()
        self.conv_stem = nn.Conv2d(3, stem_size, 3, 2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(stem_size)
        self.act1 = act_layer(inplace=True)
        self.blocks = nn.Sequential(InvertedResidual(stem_size, stem_size), InvertedResidual(stem_size, 24))
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_head = nn.Conv2d(24, num_features, 1, bias=True)
        self.act2 = act_layer(inplace=True)
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv_stem(x)))
        x = self.blocks(x)
        x = self.global_pool(x)
        x = self.act2(self.conv_head(x))
        return self.classifier(x.flatten(1))


def make_model():
    return MobileNetV3().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 80),), (torch.randn(1, 3, 48, 56),)]


def probe_inputs():
    return other_inputs()
