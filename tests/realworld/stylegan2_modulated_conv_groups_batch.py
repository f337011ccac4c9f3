"""StyleGAN2 ModulatedConv2d (basicsr / GFPGAN decoder): the per-sample modulated weights are folded
into the channel dim, `weight.view(b * self.out_channels, c, k, k)`, and applied with
`F.conv2d(x.view(1, b * c, h, w), weight, groups=b)`; exporting with dynamic axes fails with
"Unsupported: ONNX export of convolution for kernel of unknown shape" (works only without dynamic axes).

Source: https://github.com/pytorch/pytorch/issues/105910
"""
import math

import torch
from torch import nn
from torch.nn import functional as F

CLASS = "views"
FAMILY = "views"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}, "style": {0: "batch"}}
BLIND = "domains-6"


class ModulatedConv2d(nn.Module):
    """Modulated Conv2d used in StyleGAN2. There is no bias in ModulatedConv2d."""

    def __init__(self,
                 in_channels,
                 out_channels,
                 kernel_size,
                 num_style_feat,
                 demodulate=True,
                 sample_mode=None,
                 eps=1e-8):
        super(ModulatedConv2d, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.demodulate = demodulate
        self.sample_mode = sample_mode
        self.eps = eps

        # modulation inside each modulated conv
        self.modulation = nn.Linear(num_style_feat, in_channels, bias=True)
        nn.init.kaiming_normal_(self.modulation.weight)
        self.modulation.bias.data.fill_(1)

        self.weight = nn.Parameter(
            torch.randn(1, out_channels, in_channels, kernel_size, kernel_size) /
            math.sqrt(in_channels * kernel_size**2))
        self.padding = kernel_size // 2

    def forward(self, x, style):
        b, c, h, w = x.shape  # c = c_in
        # weight modulation
        style = self.modulation(style).view(b, 1, c, 1, 1)
        # self.weight: (1, c_out, c_in, k, k); style: (b, 1, c, 1, 1)
        weight = self.weight * style  # (b, c_out, c_in, k, k)

        if self.demodulate:
            demod = torch.rsqrt(weight.pow(2).sum([2, 3, 4]) + self.eps)
            weight = weight * demod.view(b, self.out_channels, 1, 1, 1)

        weight = weight.view(b * self.out_channels, c, self.kernel_size, self.kernel_size)

        if self.sample_mode == 'upsample':
            x = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
        elif self.sample_mode == 'downsample':
            x = F.interpolate(x, scale_factor=0.5, mode='bilinear', align_corners=False)

        b, c, h, w = x.shape
        x = x.view(1, b * c, h, w)
        # weight: (b*c_out, c_in, k, k), groups=b
        out = F.conv2d(x, weight, padding=self.padding, groups=b)
        out = out.view(b, self.out_channels, *out.shape[2:4])

        return out


class StyleConvBlock(nn.Module):
    def __init__(self, channels=16, num_style_feat=32):
        super().__init__()
        self.conv1 = ModulatedConv2d(channels, channels, 3, num_style_feat, sample_mode='upsample')
        self.conv2 = ModulatedConv2d(channels, channels, 3, num_style_feat)
        self.act = nn.LeakyReLU(0.2)

    def forward(self, x, style):
        x = self.act(self.conv1(x, style))
        return self.act(self.conv2(x, style))


def make_model():
    return StyleConvBlock().eval()


def example_inputs():
    return (torch.randn(2, 16, 8, 8), torch.randn(2, 32))


def other_inputs():
    return [(torch.randn(3, 16, 12, 10), torch.randn(3, 32)),
            (torch.randn(1, 16, 6, 14), torch.randn(1, 32))]


def probe_inputs():
    return other_inputs()
