"""KernelWarehouse (dynamic convolution backbone, KW-ConvNeXt): KWConv2d mixes warehouse cells with a
per-sample attention into `aggregate_weight` and runs one grouped `F.conv2d(x, weight=aggregate_weight,
groups=self.groups * batch_size)` on the batch folded into channels. torch.onnx.export with a dynamic input
shape fails with "Unsupported: ONNX export of convolution for kernel of unknown shape"; the reporter
found it only exports without dynamic input shapes.

Source: https://github.com/OSVAI/KernelWarehouse/issues/1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from itertools import repeat
import collections.abc

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-16"


def parse(x, n):
    if isinstance(x, collections.abc.Iterable):
        if len(x) == 1:
            return list(repeat(x[0], n))
        elif len(x) == n:
            return x
        else:
            raise ValueError('length of x should be 1 or n')
    else:
        return list(repeat(x, n))


class Attention(nn.Module):
    def __init__(self, in_planes, reduction, num_static_cell, num_local_mixture, norm_layer=nn.BatchNorm1d):
        super(Attention, self).__init__()
        hidden_planes = max(int(in_planes * reduction), 16)
        self.kw_planes_per_mixture = num_static_cell + 1
        self.num_local_mixture = num_local_mixture
        self.kw_planes = self.kw_planes_per_mixture * num_local_mixture

        self.avgpool = nn.AdaptiveAvgPool1d(1)
        self.fc1 = nn.Linear(in_planes, hidden_planes, bias=(norm_layer is not nn.BatchNorm1d))
        self.norm1 = norm_layer(hidden_planes)
        self.act1 = nn.ReLU(inplace=True)
        self.map_to_cell = nn.Identity()
        self.fc2 = nn.Linear(hidden_planes, self.kw_planes, bias=True)

        self.temp_bias = torch.zeros([self.kw_planes], requires_grad=False).float()
        self.temp_value = 0

    def forward(self, x):
        x = self.avgpool(x.reshape(*x.shape[:2], -1)).squeeze(dim=-1)
        x = self.act1(self.norm1(self.fc1(x)))
        x = self.map_to_cell(self.fc2(x)).reshape(-1, self.kw_planes_per_mixture)
        x = x / (torch.sum(torch.abs(x), dim=1).view(-1, 1) + 1e-3)
        x = (1.0 - self.temp_value) * x.reshape(-1, self.kw_planes) \
            + self.temp_value * self.temp_bias.to(x.device).view(1, -1)
        return x.reshape(-1, self.kw_planes_per_mixture)[:, :-1]


class KWConv2d(nn.Module):
    dimension = 2
    permute = (0, 2, 4, 3, 5, 1, 6, 7)
    func_conv = F.conv2d

    def __init__(self, in_planes, out_planes, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=False, num_cells=4):
        super().__init__()
        self.in_planes = in_planes
        self.out_planes = out_planes
        self.kernel_size = parse(kernel_size, self.dimension)
        self.stride = parse(stride, self.dimension)
        self.padding = parse(padding, self.dimension)
        self.dilation = parse(dilation, self.dimension)
        self.groups = groups
        self.bias = nn.Parameter(torch.zeros([self.out_planes]), requires_grad=True) if bias else None
        # one warehouse of cells [M, C_out, C_in, H, W] (the Warehouse_Manager's take_cell)
        self.cell = nn.Parameter(torch.randn(num_cells, out_planes, in_planes // groups, *self.kernel_size) * 0.1)
        self.cell_shape = self.cell.shape
        self.groups_out_channel = self.out_planes // self.cell_shape[1]
        self.groups_in_channel = self.in_planes // self.cell_shape[2] // self.groups
        self.groups_spatial = 1
        for idx in range(len(self.kernel_size)):
            self.groups_spatial = self.groups_spatial * self.kernel_size[idx] // self.cell_shape[3 + idx]
        num_local_mixture = self.groups_out_channel * self.groups_in_channel * self.groups_spatial
        self.attention = Attention(self.in_planes, 0.0625, self.cell_shape[0], num_local_mixture)

    def forward(self, x):
        kw_attention = self.attention(x)
        batch_size = x.shape[0]
        x = x.reshape(1, -1, *x.shape[2:])
        weight = self.cell.reshape(self.cell_shape[0], -1)
        aggregate_weight = torch.mm(kw_attention, weight)
        aggregate_weight = aggregate_weight.reshape([batch_size, self.groups_spatial, self.groups_out_channel,
                                                     self.groups_in_channel, *self.cell_shape[1:]])
        aggregate_weight = aggregate_weight.permute(*self.permute)
        aggregate_weight = aggregate_weight.reshape(-1, self.in_planes // self.groups, *self.kernel_size)
        output = self.func_conv(x, weight=aggregate_weight, bias=None, stride=self.stride, padding=self.padding,
                                dilation=self.dilation, groups=self.groups * batch_size)
        output = output.view(batch_size, self.out_planes, *output.shape[2:])
        if self.bias is not None:
            output = output + self.bias.reshape(1, -1, *([1]*self.dimension))
        return output


class KWConvNeXtStem(nn.Module):
    def __init__(self, in_chans=3, dim=16):
        super().__init__()
        self.downsample = KWConv2d(in_chans, dim, kernel_size=4, stride=4, bias=True)
        self.dwconv = KWConv2d(dim, dim, kernel_size=3, padding=1, groups=dim)

    def forward(self, x):
        x = self.downsample(x)
        return x + self.dwconv(x)


def make_model():
    return KWConvNeXtStem().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 64, 32),)]


def probe_inputs():
    return other_inputs()
