"""WaveNet music-continuation model (vincentherrmann/pytorch-wavenet, exported by ailia for "continue the music"):
`dilate` folds the time axis into the batch axis with `[n, c, l] = x.size()`,
`new_l = int(np.ceil(l / dilation_factor) * dilation_factor)`, `math.ceil(n * dilation / init_dilation)` and
`x.view(c, l, n)`, padding through a custom `ConstantPad1d` autograd Function; `forward` ends with
`x.view(n * l, c)`. The report says the exported ONNX "seems to have a problem" and has to be re-exported
(outputs differ in shape from the PyTorch model). The legacy `Function` is written in the static/ctx style that
current torch requires; the model is shrunk to 2 blocks x 3 layers.

Source: https://github.com/ailia-ai/ailia-models/issues/262
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Function

CLASS = "numpy-from-shape"
FAMILY = "numpy_interop"
DYNAMIC = {"input": {0: "batch", 2: "samples"}}
BLIND = "domains-73"


def dilate(x, dilation, init_dilation=1, pad_start=True):
    [n, c, l] = x.size()
    dilation_factor = dilation / init_dilation
    if dilation_factor == 1:
        return x

    # zero padding for reshaping
    new_l = int(np.ceil(l / dilation_factor) * dilation_factor)
    if new_l != l:
        l = new_l
        x = constant_pad_1d(x, new_l, dimension=2, pad_start=pad_start)

    l = math.ceil(l * init_dilation / dilation)
    n = math.ceil(n * dilation / init_dilation)

    # reshape according to dilation
    x = x.permute(1, 2, 0).contiguous()  # (n, c, l) -> (c, l, n)
    x = x.view(c, l, n)
    x = x.permute(2, 0, 1).contiguous()  # (c, l, n) -> (n, c, l)
    return x


class ConstantPad1d(Function):
    @staticmethod
    def forward(ctx, input, target_size, dimension=0, value=0, pad_start=False):
        num_pad = target_size - input.size(dimension)
        assert num_pad >= 0, 'target size has to be greater than input size'
        size = list(input.size())
        size[dimension] = target_size
        output = input.new(*tuple(size)).fill_(value)
        c_output = output
        # crop output
        if pad_start:
            c_output = c_output.narrow(dimension, num_pad, c_output.size(dimension) - num_pad)
        else:
            c_output = c_output.narrow(dimension, 0, c_output.size(dimension) - num_pad)
        c_output.copy_(input)
        return output


def constant_pad_1d(input, target_size, dimension=0, value=0, pad_start=False):
    return ConstantPad1d.apply(input, target_size, dimension, value, pad_start)


class WaveNetModel(nn.Module):
    def __init__(self, layers=3, blocks=2, dilation_channels=16, residual_channels=16, skip_channels=32,
                 end_channels=32, classes=32, output_length=4, kernel_size=2, dilation_factor=2, bias=True):
        super(WaveNetModel, self).__init__()
        self.layers, self.blocks, self.kernel_size, self.classes = layers, blocks, kernel_size, classes
        receptive_field = 1
        init_dilation = 1
        self.dilations = []
        self.filter_convs, self.gate_convs = nn.ModuleList(), nn.ModuleList()
        self.residual_convs, self.skip_convs = nn.ModuleList(), nn.ModuleList()
        self.start_conv = nn.Conv1d(in_channels=classes, out_channels=residual_channels, kernel_size=1, bias=bias)
        for b in range(blocks):
            additional_scope = kernel_size - 1
            new_dilation = 1
            for i in range(layers):
                self.dilations.append((new_dilation, init_dilation))
                self.filter_convs.append(nn.Conv1d(residual_channels, dilation_channels, kernel_size, bias=bias))
                self.gate_convs.append(nn.Conv1d(residual_channels, dilation_channels, kernel_size, bias=bias))
                self.residual_convs.append(nn.Conv1d(dilation_channels, residual_channels, 1, bias=bias))
                self.skip_convs.append(nn.Conv1d(dilation_channels, skip_channels, 1, bias=bias))
                receptive_field += additional_scope
                additional_scope *= dilation_factor
                init_dilation = new_dilation
                new_dilation *= dilation_factor
        self.end_conv_1 = nn.Conv1d(skip_channels, end_channels, 1, bias=True)
        self.end_conv_2 = nn.Conv1d(end_channels, classes, 1, bias=True)
        self.output_length = output_length
        self.receptive_field = receptive_field

    def wavenet_dilate(self, input, dilation, init_dilation, queue=''):
        return dilate(input, dilation, init_dilation)

    def wavenet(self, input, dilation_func):
        x = self.start_conv(input)
        skip = 0
        for i in range(self.blocks * self.layers):
            (dilation, init_dilation) = self.dilations[i]
            residual = dilation_func(x, dilation, init_dilation, queue='layer_' + str(i))
            filter = torch.tanh(self.filter_convs[i](residual))
            gate = torch.sigmoid(self.gate_convs[i](residual))
            x = filter * gate
            s = x
            if x.size(2) != 1:
                s = dilate(x, 1, init_dilation=dilation)
            s = self.skip_convs[i](s)
            try:
                skip = skip[:, :, -s.size(2):]
            except:
                skip = 0
            skip = s + skip
            x = self.residual_convs[i](x)
            x = x + residual[:, :, (self.kernel_size - 1):]
        x = F.relu(skip)
        x = F.relu(self.end_conv_1(x))
        x = self.end_conv_2(x)
        return x

    def forward(self, input):
        x = self.wavenet(input, dilation_func=self.wavenet_dilate)
        # reshape output
        [n, c, l] = x.size()
        l = self.output_length
        x = x[:, :, -l:]
        x = x.transpose(1, 2).contiguous()
        x = x.view(n * l, c)
        return x


def make_model():
    return WaveNetModel().eval()


def example_inputs():
    return (torch.randn(2, 32, 37),)


def other_inputs():
    return [(torch.randn(3, 32, 50),), (torch.randn(1, 32, 29),)]


def probe_inputs():
    return other_inputs()
