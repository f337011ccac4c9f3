"""NeMo Conformer `ConvSubsampling` (striding) computes the subsampled lengths in forward with a Python list
comprehension, `calc_length(length=int(length), ...)` (math.floor on Python ints) for each element of the
`lengths` tensor, and rebuilds them with `torch.IntTensor(new_lengths)`; the PR "Changes for ONNX conversion of
Conformer models" rewrote it as tensor math so the Conformer could be exported to ONNX.

Source: https://github.com/NVIDIA/NeMo/pull/2439
"""
import math

import torch
import torch.nn as nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "batch", 1: "time"}, "lengths": {0: "batch"}}
BLIND = "domains-45"


class ConvSubsampling(torch.nn.Module):
    def __init__(self, subsampling, subsampling_factor, feat_in, feat_out, conv_channels, activation=nn.ReLU()):
        super(ConvSubsampling, self).__init__()
        self._subsampling = subsampling

        if subsampling_factor % 2 != 0:
            raise ValueError("Sampling factor should be a multiply of 2!")
        self._sampling_num = int(math.log(subsampling_factor, 2))

        in_channels = 1
        layers = []
        self._padding = 1
        self._stride = 2
        self._kernel_size = 3
        self._ceil_mode = False

        for i in range(self._sampling_num):
            layers.append(
                torch.nn.Conv2d(
                    in_channels=in_channels,
                    out_channels=conv_channels,
                    kernel_size=self._kernel_size,
                    stride=self._stride,
                    padding=self._padding,
                )
            )
            layers.append(activation)
            in_channels = conv_channels

        in_length = feat_in
        for i in range(self._sampling_num):
            out_length = calc_length(
                length=int(in_length),
                padding=self._padding,
                kernel_size=self._kernel_size,
                stride=self._stride,
                ceil_mode=self._ceil_mode,
            )
            in_length = out_length

        self.out = torch.nn.Linear(conv_channels * out_length, feat_out)
        self.conv = torch.nn.Sequential(*layers)

    def forward(self, x, lengths):
        x = x.unsqueeze(1)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))

        # TODO: improve the performance of length calculation
        new_lengths = lengths
        for i in range(self._sampling_num):
            new_lengths = [
                calc_length(
                    length=int(length),
                    padding=self._padding,
                    kernel_size=self._kernel_size,
                    stride=self._stride,
                    ceil_mode=self._ceil_mode,
                )
                for length in new_lengths
            ]

        new_lengths = torch.IntTensor(new_lengths).to(lengths.device)
        return x, new_lengths


def calc_length(length, padding, kernel_size, stride, ceil_mode):
    """ Calculates the output length of a Tensor passed through a convolution or max pooling layer"""
    if ceil_mode:
        length = math.ceil((length + (2 * padding) - (kernel_size - 1) - 1) / float(stride) + 1)
    else:
        length = math.floor((length + (2 * padding) - (kernel_size - 1) - 1) / float(stride) + 1)
    return length


class ConformerFrontEnd(nn.Module):
    def __init__(self, feat_in=16, d_model=32):
        super().__init__()
        self.pre_encode = ConvSubsampling('striding', 4, feat_in, d_model, conv_channels=8)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x, lengths):
        # x: (batch, time, feat_in); lengths: (batch,)
        x, length = self.pre_encode(x, lengths)
        return self.proj(x), length


def make_model():
    return ConformerFrontEnd().eval()


def example_inputs():
    return (torch.randn(2, 64, 16), torch.tensor([64, 50]))


def other_inputs():
    return [
        (torch.randn(3, 90, 16), torch.tensor([90, 71, 33])),
        (torch.randn(1, 41, 16), torch.tensor([41])),
    ]


def probe_inputs():
    return other_inputs()
