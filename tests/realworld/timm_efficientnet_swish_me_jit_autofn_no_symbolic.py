"""timm EfficientNet blocks built with the memory-efficient Swish (`SwishMe`): `SwishJitAutoFn` is a
`torch.autograd.Function` whose forward/backward call jit-scripted helpers and that has no `symbolic`, so ONNX
export of the model stops at the Python operator; the PR "Add symbolic for SwishJitAutoFn to support onnx" adds
`symbolic(g, x) = Mul(x, Sigmoid(x))`. (Stem + one depthwise-separable block + head of an EfficientNet.)

Source: https://github.com/huggingface/pytorch-image-models/pull/282
"""
import torch
from torch import nn as nn

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-54"


@torch.jit.script
def swish_jit_fwd(x):
    return x.mul(torch.sigmoid(x))


@torch.jit.script
def swish_jit_bwd(x, grad_output):
    x_sigmoid = torch.sigmoid(x)
    return grad_output * (x_sigmoid * (1 + x * (1 - x_sigmoid)))


class SwishJitAutoFn(torch.autograd.Function):
    """ torch.jit.script optimised Swish w/ memory-efficient checkpoint
    Inspired by conversation btw Jeremy Howard & Adam Pazske
    https://twitter.com/jeremyphoward/status/1188251041835315200
    """

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return swish_jit_fwd(x)

    @staticmethod
    def backward(ctx, grad_output):
        x = ctx.saved_tensors[0]
        return swish_jit_bwd(x, grad_output)


class SwishMe(nn.Module):
    def __init__(self, inplace: bool = False):
        super(SwishMe, self).__init__()

    def forward(self, x):
        return SwishJitAutoFn.apply(x)


class DepthwiseSeparableConv(nn.Module):
    def __init__(self, in_chs, out_chs, act_layer=SwishMe):
        super().__init__()
        self.conv_dw = nn.Conv2d(in_chs, in_chs, 3, padding=1, groups=in_chs, bias=False)
        self.bn1 = nn.BatchNorm2d(in_chs)
        self.act1 = act_layer(inplace=True)
        self.conv_pw = nn.Conv2d(in_chs, out_chs, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_chs)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv_dw(x)))
        return self.bn2(self.conv_pw(x))


class EfficientNetLite(nn.Module):
    def __init__(self, num_classes=10, act_layer=SwishMe):
        super().__init__()
        self.conv_stem = nn.Conv2d(3, 32, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(32)
        self.act1 = act_layer(inplace=True)
        self.blocks = DepthwiseSeparableConv(32, 16, act_layer=act_layer)
        self.conv_head = nn.Conv2d(16, 64, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(64)
        self.act2 = act_layer(inplace=True)
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv_stem(x)))
        x = self.blocks(x)
        x = self.act2(self.bn2(self.conv_head(x)))
        return self.classifier(self.global_pool(x).flatten(1))


def make_model():
    return EfficientNetLite().eval()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)


def other_inputs():
    return [(torch.randn(3, 3, 96, 80),), (torch.randn(1, 3, 48, 112),)]


def probe_inputs():
    return other_inputs()
