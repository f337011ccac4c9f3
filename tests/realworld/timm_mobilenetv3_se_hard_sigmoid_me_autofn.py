"""timm mobilenetv3_large_100 (features_only, as a RetinaFace backbone): the SqueezeExcite gate is timm's memory-efficient
`HardSigmoidMe`, a `torch.autograd.Function` (HardSigmoidJitAutoFn) around jit-scripted forward/backward with no
`symbolic`, so torch.onnx.export stops with "Couldn't export Python operator HardSigmoidJitAutoFn" (HardSwishJitAutoFn
in the same file has a symbolic and exports).

Source: https://github.com/huggingface/pytorch-image-models/issues/730
"""
import torch
import torch.nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch"}}
BLIND = "domains-41"


@torch.jit.script
def hard_sigmoid_jit_fwd(x, inplace: bool = False):
    return (x + 3).clamp(min=0, max=6).div(6.)


@torch.jit.script
def hard_sigmoid_jit_bwd(x, grad_output):
    m = torch.ones_like(x) * ((x >= -3.) & (x <= 3.)) / 6.
    return grad_output * m


class HardSigmoidJitAutoFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return hard_sigmoid_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return hard_sigmoid_jit_bwd(x, grad_output)


class HardSigmoidMe(nn.Module):
    def __init__(self, inplace: bool = False):
        super(HardSigmoidMe, self).__init__()

    def forward(self, x):
        return HardSigmoidJitAutoFn.apply(x)


class SqueezeExcite(nn.Module):
    def __init__(self, in_chs, rd_ratio=0.25, act_layer=nn.ReLU, gate_layer=HardSigmoidMe):
        super(SqueezeExcite, self).__init__()
        rd_channels = round(in_chs * rd_ratio)
        self.conv_reduce = nn.Conv2d(in_chs, rd_channels, 1, bias=True)
        self.act1 = act_layer(inplace=True)
        self.conv_expand = nn.Conv2d(rd_channels, in_chs, 1, bias=True)
        self.gate = gate_layer()

    def forward(self, x):
        x_se = x.mean((2, 3), keepdim=True)
        x_se = self.conv_reduce(x_se)
        x_se = self.act1(x_se)
        x_se = self.conv_expand(x_se)
        return x * self.gate(x_se)


class InvertedResidual(nn.Module):
    def __init__(self, in_chs, mid_chs, out_chs, stride=1):
        super().__init__()
        self.conv_pw = nn.Sequential(nn.Conv2d(in_chs, mid_chs, 1, bias=False), nn.BatchNorm2d(mid_chs), nn.Hardswish())
        self.conv_dw = nn.Sequential(nn.Conv2d(mid_chs, mid_chs, 3, stride, 1, groups=mid_chs, bias=False),
                                     nn.BatchNorm2d(mid_chs), nn.Hardswish())
        self.se = SqueezeExcite(mid_chs)
        self.conv_pwl = nn.Sequential(nn.Conv2d(mid_chs, out_chs, 1, bias=False), nn.BatchNorm2d(out_chs))
        self.has_residual = stride == 1 and in_chs == out_chs

    def forward(self, x):
        shortcut = x
        x = self.conv_pwl(self.se(self.conv_dw(self.conv_pw(x))))
        return x + shortcut if self.has_residual else x


class MobileNetV3Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish())
        self.block1 = InvertedResidual(16, 48, 24, stride=2)
        self.block2 = InvertedResidual(24, 72, 24)
        self.block3 = InvertedResidual(24, 96, 40, stride=2)

    def forward(self, x):
        x = self.conv_stem(x)
        f1 = self.block2(self.block1(x))
        f2 = self.block3(f1)
        return f1, f2       # features_only: one map per out_index


def make_model():
    return MobileNetV3Features().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 64, 64),), (torch.randn(1, 3, 64, 64),)]


def probe_inputs():
    return other_inputs()
