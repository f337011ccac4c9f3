"""HyperStyle's StyleGAN2 decoder (rosinality layers) exported from W+ codes plus the hypernetwork's per-sample
weight offsets: `ModulatedConv2d` builds `weight = self.scale * (self.weight * (1 + weights_delta) * style)`,
reshapes it to `batch * self.out_channel` kernels and runs `F.conv2d(input, weight, ..., groups=batch)`; the
export stops with "Unsupported: ONNX export of convolution for kernel of unknown shape".

Source: https://github.com/yuval-alaluf/hyperstyle/issues/17
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"codes": {0: "batch"}, "weights_delta": {0: "batch"}}
BLIND = "domains-24"


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
    def __init__(self, in_channel, out_channel, kernel_size, style_dim, demodulate=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.in_channel = in_channel
        self.out_channel = out_channel
        fan_in = in_channel * kernel_size ** 2
        self.scale = 1 / math.sqrt(fan_in)
        self.padding = kernel_size // 2
        self.weight = nn.Parameter(torch.randn(1, out_channel, in_channel, kernel_size, kernel_size))
        self.modulation = EqualLinear(style_dim, in_channel, bias_init=1)
        self.demodulate = demodulate

    def forward(self, input, style, weights_delta=None):
        batch, in_channel, height, width = input.shape

        style = self.modulation(style).view(batch, 1, in_channel, 1, 1)
        if weights_delta is None:
            weight = self.scale * self.weight * style
        else:
            weight = self.scale * (self.weight * (1 + weights_delta) * style)

        if self.demodulate:
            demod = torch.rsqrt(weight.pow(2).sum([2, 3, 4]) + 1e-8)
            weight = weight * demod.view(batch, self.out_channel, 1, 1, 1)

        weight = weight.view(batch * self.out_channel, in_channel, self.kernel_size, self.kernel_size)

        input = input.view(1, batch * in_channel, height, width)
        out = F.conv2d(input, weight, padding=self.padding, groups=batch)
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


class Decoder(nn.Module):
    def __init__(self, channel=16, style_dim=32, n_latent=3):
        super().__init__()
        self.input = ConstantInput(channel)
        self.conv1 = ModulatedConv2d(channel, channel, 3, style_dim)
        self.bias1 = nn.Parameter(torch.zeros(channel))
        self.conv2 = ModulatedConv2d(channel, channel, 3, style_dim)
        self.bias2 = nn.Parameter(torch.zeros(channel))
        self.to_rgb = ModulatedConv2d(channel, 3, 1, style_dim, demodulate=False)
        self.n_latent = n_latent

    def forward(self, codes, weights_delta):
        latent = codes
        out = self.input(latent)
        out = self.conv1(out, latent[:, 0])
        out = F.leaky_relu(out + self.bias1.view(1, -1, 1, 1), 0.2) * math.sqrt(2)
        out = self.conv2(out, latent[:, 1], weights_delta=weights_delta)
        out = F.leaky_relu(out + self.bias2.view(1, -1, 1, 1), 0.2) * math.sqrt(2)
        image = self.to_rgb(out, latent[:, 2])
        return image


def make_model():
    return Decoder().eval()


def example_inputs():
    return (torch.randn(2, 3, 32), 0.1 * torch.randn(2, 16, 16, 3, 3))


def other_inputs():
    return [(torch.randn(3, 3, 32), 0.1 * torch.randn(3, 16, 16, 3, 3)),
            (torch.randn(1, 3, 32), 0.1 * torch.randn(1, 16, 16, 3, 3))]


def probe_inputs():
    return other_inputs()
