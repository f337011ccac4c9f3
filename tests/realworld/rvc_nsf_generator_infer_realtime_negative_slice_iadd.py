"""RVC (w-okada voice-changer) NSF-HiFiGAN `GeneratorNSF.infer_realtime`: the realtime decoder builds each
stage as `x = torch.zeros([..., max(x_.shape[2], x_source.shape[2])])` and then adds the upsampled features and
the noise-conv source into its tail with `x[:, :, -x_.shape[2]:] += x_` (plus `np.prod` length math); the
commit "onnx improvement" switched the ONNX export wrappers from `self.dec.infer_realtime(...)` back to
`self.dec(...)`. (The NSF sine source, which draws random noise, is passed in precomputed as `har_source`.)

Source: https://github.com/w-okada/voice-changer/commit/8e822c16e377a63f42d806fdf015ea61b006ca52
"""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import Conv1d, ConvTranspose1d

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"x": {0: "batch", 2: "frames"}, "har_source": {0: "batch", 1: "samples"}, "g": {0: "batch"}}
BLIND = "domains-51"

LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


class ResBlock2(torch.nn.Module):
    def __init__(self, channels, kernel_size=3, dilation=(1, 3)):
        super(ResBlock2, self).__init__()
        self.convs = nn.ModuleList(
            [
                Conv1d(channels, channels, kernel_size, 1, dilation=dilation[0], padding=get_padding(kernel_size, dilation[0])),
                Conv1d(channels, channels, kernel_size, 1, dilation=dilation[1], padding=get_padding(kernel_size, dilation[1])),
            ]
        )

    def forward(self, x, x_mask=None):
        for c in self.convs:
            xt = F.leaky_relu(x, LRELU_SLOPE)
            if x_mask is not None:
                xt = xt * x_mask
            xt = c(xt)
            x = xt + x
        if x_mask is not None:
            x = x * x_mask
        return x


class GeneratorNSF(torch.nn.Module):
    def __init__(self, initial_channel=8, resblock="2", resblock_kernel_sizes=[3], resblock_dilation_sizes=[[1, 3]],
                 upsample_rates=[4, 2], upsample_initial_channel=16, upsample_kernel_sizes=[8, 4], gin_channels=4):
        super(GeneratorNSF, self).__init__()
        self.num_kernels = len(resblock_kernel_sizes)
        self.num_upsamples = len(upsample_rates)
        self.upsample_rates = upsample_rates

        self.noise_convs = nn.ModuleList()
        self.conv_pre = Conv1d(initial_channel, upsample_initial_channel, 7, 1, padding=3)
        resblock = ResBlock2

        self.ups = nn.ModuleList()
        for i, (u, k) in enumerate(zip(upsample_rates, upsample_kernel_sizes)):
            c_cur = upsample_initial_channel // (2 ** (i + 1))
            self.ups.append(
                ConvTranspose1d(upsample_initial_channel // (2**i), upsample_initial_channel // (2 ** (i + 1)), k, u, padding=(k - u) // 2)
            )
            if i + 1 < len(upsample_rates):
                stride_f0 = np.prod(upsample_rates[i + 1 :])
                self.noise_convs.append(Conv1d(1, c_cur, kernel_size=stride_f0 * 2, stride=stride_f0, padding=stride_f0 // 2))
            else:
                self.noise_convs.append(Conv1d(1, c_cur, kernel_size=1))

        self.resblocks = nn.ModuleList()
        for i in range(len(self.ups)):
            ch = upsample_initial_channel // (2 ** (i + 1))
            for j, (k, d) in enumerate(zip(resblock_kernel_sizes, resblock_dilation_sizes)):
                self.resblocks.append(resblock(ch, k, d))

        self.conv_post = Conv1d(ch, 1, 7, 1, padding=3, bias=False)
        if gin_channels != 0:
            self.cond = nn.Conv1d(gin_channels, upsample_initial_channel, 1)
        self.upp = np.prod(upsample_rates)

        # Compute the minimum size required for estimating real-time speech conversion.
        self.realtime = True
        self.ups_size = [0 for _ in range(len(self.ups))]
        self.noise_conv_size = [0 for _ in range(len(self.ups))]
        self.ups_size[-1] += 3
        for i in range(len(self.ups) - 1, -1, -1):
            for k, d in zip(resblock_kernel_sizes[::-1], resblock_dilation_sizes[::-1]):
                self.ups_size[i] += (k - 1) // 2
                self.ups_size[i] += d[-1] * (k - 1) // 2
            self.noise_conv_size[i] = self.ups_size[i] * np.prod(upsample_rates[i:])
            self.ups_size[i] = -(-self.ups_size[i] // upsample_rates[i]) + (upsample_kernel_sizes[i] - upsample_rates[i]) // 2
            if i:
                self.ups_size[i - 1] = self.ups_size[i] + 0

    def infer_realtime(self, x, har_source, g=None, convert_length=None):
        out_length = x.shape[2] * np.prod(self.upsample_rates)
        if convert_length is None:
            convert_length = x.shape[2] * np.prod(self.upsample_rates)

        har_source = har_source.transpose(1, 2)
        x = self.conv_pre(x)
        if g is not None:
            x = x + self.cond(g)

        for i in range(self.num_upsamples):
            if self.realtime:
                x = x[:, :, -self.ups_size[i] + (-convert_length // np.prod(self.upsample_rates[i:])):]
            x = F.leaky_relu(x, LRELU_SLOPE)
            x_ = self.ups[i](x)
            x_source = self.noise_convs[i](har_source[:, :, -convert_length - self.noise_conv_size[i]:])
            x = torch.zeros([x_.shape[0], x_.shape[1], max(x_.shape[2], x_source.shape[2])], device=x.device, dtype=x.dtype)
            x[:, :, -x_.shape[2]:] += x_
            x[:, :, -x_source.shape[2]:] += x_source

            xs = None
            for j in range(self.num_kernels):
                if xs is None:
                    xs = self.resblocks[i * self.num_kernels + j](x)
                else:
                    xs += self.resblocks[i * self.num_kernels + j](x)
            x = xs / self.num_kernels
        x = F.leaky_relu(x)
        x = self.conv_post(x)
        x = torch.tanh(x)
        out = torch.zeros([x.shape[0], 1, out_length], device=x.device, dtype=x.dtype)
        out[:, :, -x.shape[2]:] = x[:, :, -out.shape[2]:]

        return x  # out


class SynthesizerDecoderONNX(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec = GeneratorNSF()

    def forward(self, x, har_source, g):
        return self.dec.infer_realtime(x, har_source, g=g)


def make_model():
    return SynthesizerDecoderONNX().eval()


def _inputs(b, t):
    return (torch.randn(b, 8, t), torch.randn(b, t * 8, 1), torch.randn(b, 4, 1))


def example_inputs():
    return _inputs(1, 20)


def other_inputs():
    return [_inputs(2, 33), _inputs(1, 11)]


def probe_inputs():
    return other_inputs()
