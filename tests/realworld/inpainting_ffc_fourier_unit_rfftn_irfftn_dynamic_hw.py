"""Inpainting model built on Fast Fourier Convolution (FourierUnit: `torch.fft.rfftn` -> 1x1 conv on
stacked real/imag -> `torch.complex` -> `torch.fft.irfftn(s=x.shape[-2:])`, norm='ortho') taking
[b, 4, h, w] images; the report: `torch.onnx.export` can't export the operators with complex tensors,
and the dynamic (b, h, w) model had to go through the dynamo exporter instead.

Source: https://github.com/onnx/onnx/issues/6016
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-17"


class FourierUnit(nn.Module):
    def __init__(self, in_channels, out_channels, groups=1, fft_norm='ortho',
                 norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU):
        super(FourierUnit, self).__init__()
        self.groups = groups
        self.conv_layer = torch.nn.Conv2d(in_channels=in_channels * 2, out_channels=out_channels * 2,
                                          kernel_size=1, stride=1, padding=0, groups=self.groups, bias=False)
        self.bn = norm_layer(out_channels * 2)
        self.relu = activation_layer(inplace=True)
        self.fft_norm = fft_norm

    def forward(self, x):
        batch = x.shape[0]

        # (batch, c, h, w/2+1, 2)
        fft_dim = (-2, -1)
        ffted = torch.fft.rfftn(x, dim=fft_dim, norm=self.fft_norm)
        ffted = torch.stack((ffted.real, ffted.imag), dim=-1)
        ffted = ffted.permute(0, 1, 4, 2, 3).contiguous()  # (batch, c, 2, h, w/2+1)
        ffted = ffted.view((batch, -1,) + ffted.size()[3:])

        ffted = self.conv_layer(ffted)  # (batch, c*2, h, w/2+1)
        ffted = self.relu(self.bn(ffted))

        ffted = ffted.view((batch, -1, 2,) + ffted.size()[2:]).permute(
            0, 1, 3, 4, 2).contiguous()  # (batch, c, h, w/2+1, 2)
        ffted = torch.complex(ffted[..., 0], ffted[..., 1])

        ifft_shape_slice = x.shape[-2:]
        output = torch.fft.irfftn(ffted, s=ifft_shape_slice, dim=fft_dim, norm=self.fft_norm)
        return output


class InpaintNet(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(4, ch, 3, padding=1), nn.BatchNorm2d(ch), nn.ReLU(inplace=True))
        self.fu = FourierUnit(ch, ch)
        self.decoder = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, x):  # x: [b, 4, h, w] (masked image + mask)
        f = self.encoder(x)
        f = f + self.fu(f)
        return torch.sigmoid(self.decoder(f))


def make_model():
    return InpaintNet().eval()


def example_inputs():
    return (torch.rand(1, 4, 64, 64),)


def other_inputs():
    return [(torch.rand(2, 4, 48, 80),), (torch.rand(3, 4, 96, 56),)]


def probe_inputs():
    return other_inputs()
