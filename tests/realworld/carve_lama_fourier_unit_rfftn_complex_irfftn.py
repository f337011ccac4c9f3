"""LaMa inpainting (Carve-Photos fork): the FFC FourierUnit takes `torch.fft.rfftn(x, dim=(-2, -1), norm='ortho')`,
stacks real/imag as channels, applies a 1x1 conv + BN + ReLU, rebuilds the spectrum with `torch.complex(...)` and
goes back with `torch.fft.irfftn(ffted, s=x.shape[-2:], ...)`. The commit "Added FourierUnit ONNX exportable version"
re-implements the transforms as real-valued cos/sin matmuls because the complex FFT path does not go through
torch.onnx.export. The code BEFORE the commit is the case (FourierUnit kept, wrapped in a small spectral block).

Source: https://github.com/Carve-Photos/lama/commit/5a67a02ad5047c33326695acf3bff8f9f44f19ac
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-47"


class FourierUnit(nn.Module):

    def __init__(self, in_channels, out_channels, groups=1, spatial_scale_factor=None, spatial_scale_mode='bilinear',
                 spectral_pos_encoding=False, use_se=False, se_kwargs=None, ffc3d=False, fft_norm='ortho'):
        # bn_layer not used
        super(FourierUnit, self).__init__()
        self.groups = groups

        self.conv_layer = torch.nn.Conv2d(in_channels=in_channels * 2 + (2 if spectral_pos_encoding else 0),
                                          out_channels=out_channels * 2,
                                          kernel_size=1, stride=1, padding=0, groups=self.groups, bias=False)
        self.bn = torch.nn.BatchNorm2d(out_channels * 2)
        self.relu = torch.nn.ReLU(inplace=True)

        self.use_se = use_se
        self.spatial_scale_factor = spatial_scale_factor
        self.spatial_scale_mode = spatial_scale_mode
        self.spectral_pos_encoding = spectral_pos_encoding
        self.ffc3d = ffc3d
        self.fft_norm = fft_norm

    def forward(self, x):
        batch = x.shape[0]

        if self.spatial_scale_factor is not None:
            orig_size = x.shape[-2:]
            x = F.interpolate(x, scale_factor=self.spatial_scale_factor, mode=self.spatial_scale_mode, align_corners=False)

        r_size = x.size()
        # (batch, c, h, w/2+1, 2)
        fft_dim = (-3, -2, -1) if self.ffc3d else (-2, -1)
        ffted = torch.fft.rfftn(x, dim=fft_dim, norm=self.fft_norm)
        ffted = torch.stack((ffted.real, ffted.imag), dim=-1)
        ffted = ffted.permute(0, 1, 4, 2, 3).contiguous()  # (batch, c, 2, h, w/2+1)
        ffted = ffted.view((batch, -1,) + ffted.size()[3:])

        ffted = self.conv_layer(ffted)  # (batch, c*2, h, w/2+1)
        ffted = self.relu(self.bn(ffted))

        ffted = ffted.view((batch, -1, 2,) + ffted.size()[2:]).permute(
            0, 1, 3, 4, 2).contiguous()  # (batch,c, t, h, w/2+1, 2)
        ffted = torch.complex(ffted[..., 0], ffted[..., 1])

        ifft_shape_slice = x.shape[-3:] if self.ffc3d else x.shape[-2:]
        output = torch.fft.irfftn(ffted, s=ifft_shape_slice, dim=fft_dim, norm=self.fft_norm)

        if self.spatial_scale_factor is not None:
            output = F.interpolate(output, size=orig_size, mode=self.spatial_scale_mode, align_corners=False)

        return output


class SpectralBlock(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(channels, channels // 2, kernel_size=1, bias=False),
                                   nn.BatchNorm2d(channels // 2), nn.ReLU(inplace=True))
        self.fu = FourierUnit(channels // 2, channels // 2)
        self.conv2 = nn.Conv2d(channels // 2, channels, kernel_size=1, bias=False)

    def forward(self, x):
        x = self.conv1(x)
        output = self.fu(x)
        return self.conv2(x + output)


def make_model():
    return SpectralBlock().eval()


def example_inputs():
    return (torch.randn(2, 8, 32, 24),)


def other_inputs():
    return [(torch.randn(3, 8, 40, 36),), (torch.randn(1, 8, 16, 20),)]


def probe_inputs():
    return other_inputs()
