"""rosinality stylegan2-pytorch `Generator` exported with `torch.onnx.export(g_ema, [sample_z], ...)`: the
upsampling `ModulatedConv2d` folds the batch into channels and calls `conv2d_gradfix.conv_transpose2d(input, weight,
padding=0, stride=2, groups=batch)`; the export prints "Converting a tensor to a Python integer" TracerWarnings at
the conv2d_gradfix calls (the batch is frozen into `groups`) and the user asks how to get a working ONNX model.

Source: https://github.com/rosinality/stylegan2-pytorch/issues/276
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"styles": {0: "batch"}}
BLIND = "domains-24"


# op/conv2d_gradfix.py (CPU path: the custom autograd op is only used on CUDA)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return F.conv2d(input=input, weight=weight, bias=bias, stride=stride, padding=padding,
                    dilation=dilation, groups=groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return F.conv_transpose2d(input=input, weight=weight, bias=bias, stride=stride, padding=padding,
                              output_padding=output_padding, dilation=dilation, groups=groups)


class PixelNorm(nn.Module):
    def forward(self, input):
        return input * torch.rsqrt(torch.mean(input ** 2, dim=1, keepdim=True) + 1e-8)


class EqualLinear(nn.Module):
    def __init__(self, in_dim, out_dim, bias_init=0, lr_mul=1):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_dim, in_dim).div_(lr_mul))
        self.bias = nn.Parameter(torch.zeros(out_dim).fill_(bias_init))
        self.scale = (1 / math.sqrt(in_dim)) * lr_mul
        self.lr_mul = lr_mul

    def forward(self, input):
        return F.linear(input, self.weight * self.scale, bias=self.bias * self.lr_mul)


class ModulatedConv2d(nn.Module):
    def __init__(self, in_channel, out_channel, kernel_size, style_dim, demodulate=True, upsample=False):
        super().__init__()
        self.eps = 1e-8
        self.kernel_size = kernel_size
        self.in_channel = in_channel
        self.out_channel = out_channel
        self.upsample = upsample
        fan_in = in_channel * kernel_size ** 2
        self.scale = 1 / math.sqrt(fan_in)
        self.padding = kernel_size // 2
        self.weight = nn.Parameter(torch.randn(1, out_channel, in_channel, kernel_size, kernel_size))
        self.modulation = EqualLinear(style_dim, in_channel, bias_init=1)
        self.demodulate = demodulate

    def forward(self, input, style):
        batch, in_channel, height, width = input.shape

        style = self.modulation(style).view(batch, 1, in_channel, 1, 1)
        weight = self.scale * self.weight * style

        if self.demodulate:
            demod = torch.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8)
            weight = weight * demod.view(batch, self.out_channel, 1, 1, 1)

        weight = weight.view(batch * self.out_channel, in_channel, self.kernel_size, self.kernel_size)

        if self.upsample:
            input = input.view(1, batch * in_channel, height, width)
            weight = weight.view(batch, self.out_channel, in_channel, self.kernel_size, self.kernel_size)
            weight = weight.transpose(1, 2).reshape(batch * in_channel, self.out_channel, self.kernel_size,
                                                    self.kernel_size)
            out = conv_transpose2d(input, weight, padding=0, stride=2, groups=batch)
            _, _, height, width = out.shape
            out = out.view(batch, self.out_channel, height, width)
        else:
            input = input.view(1, batch * in_channel, height, width)
            out = conv2d(input, weight, padding=self.padding, groups=batch)
            _, _, height, width = out.shape
            out = out.view(batch, self.out_channel, height, width)

        return out


class ConstantInput(nn.Module):
    def __init__(self, channel, size=4):
        super().__init__()
        self.input = nn.Parameter(torch.randn(1, channel, size, size))

    def forward(self, input):
        batch = input.shape[0]
        out = self.input.repeat(batch, 1, 1, 1)
        return out


class Generator(nn.Module):
    def __init__(self, style_dim=32, channel=16, n_mlp=2):
        super().__init__()
        self.style = nn.Sequential(PixelNorm(), *[EqualLinear(style_dim, style_dim, lr_mul=0.01) for _ in range(n_mlp)])
        self.input = ConstantInput(channel)
        self.conv1 = ModulatedConv2d(channel, channel, 3, style_dim)
        self.conv_up = ModulatedConv2d(channel, channel, 3, style_dim, upsample=True)
        self.to_rgb = ModulatedConv2d(channel, 3, 1, style_dim, demodulate=False)
        self.n_latent = 3

    def forward(self, styles):
        styles = [self.style(s) for s in [styles]]
        latent = styles[0].unsqueeze(1).repeat(1, self.n_latent, 1)

        out = self.input(latent)
        out = F.leaky_relu(self.conv1(out, latent[:, 0]), 0.2) * math.sqrt(2)
        out = F.leaky_relu(self.conv_up(out, latent[:, 1]), 0.2) * math.sqrt(2)
        image = self.to_rgb(out, latent[:, 2])
        return image


def make_model():
    return Generator().eval()


def example_inputs():
    return (torch.randn(2, 32),)


def other_inputs():
    return [(torch.randn(3, 32),), (torch.randn(1, 32),)]


def probe_inputs():
    return other_inputs()
