"""CAIN video frame interpolation: `InOutPaddings` computes reflection paddings to a multiple of 128 from
`x.size(3)`/`x.size(2)` with Python shifts and `if`s, and the custom `pixel_shuffle(input, 1/8)` computes its
view sizes with `int(in_height * scale_factor)`; the ailia port had to move the padding out of the model and
rewrite pixel_shuffle so "tensor sizes are handled as variable length" before the ONNX export generalised.

Source: https://github.com/ailia-ai/ailia-models/issues/406
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"x1": {2: "height", 3: "width"}, "x2": {2: "height", 3: "width"}}
BLIND = "domains-4"


def InOutPaddings(x):
    w, h = x.size(3), x.size(2)
    padding_width, padding_height = 0, 0
    if w != ((w >> 7) << 7):
        padding_width = (((w >> 7) + 1) << 7) - w
    if h != ((h >> 7) << 7):
        padding_height = (((h >> 7) + 1) << 7) - h
    paddingInput = nn.ReflectionPad2d(padding=[padding_width // 2, padding_width - padding_width // 2,
                                               padding_height // 2, padding_height - padding_height // 2])
    paddingOutput = nn.ReflectionPad2d(padding=[0 - padding_width // 2, padding_width // 2 - padding_width,
                                                0 - padding_height // 2, padding_height // 2 - padding_height])
    return paddingInput, paddingOutput


def pixel_shuffle(input, scale_factor):
    batch_size, channels, in_height, in_width = input.size()

    out_channels = int(int(channels / scale_factor) / scale_factor)
    out_height = int(in_height * scale_factor)
    out_width = int(in_width * scale_factor)

    if scale_factor >= 1:
        input_view = input.contiguous().view(batch_size, out_channels, scale_factor, scale_factor, in_height, in_width)
        shuffle_out = input_view.permute(0, 1, 4, 2, 5, 3).contiguous()
    else:
        block_size = int(1 / scale_factor)
        input_view = input.contiguous().view(batch_size, channels, out_height, block_size, out_width, block_size)
        shuffle_out = input_view.permute(0, 1, 3, 5, 2, 4).contiguous()

    return shuffle_out.view(batch_size, out_channels, out_height, out_width)


class PixelShuffle(nn.Module):
    def __init__(self, scale_factor):
        super(PixelShuffle, self).__init__()
        self.scale_factor = scale_factor

    def forward(self, x):
        return pixel_shuffle(x, self.scale_factor)


class Interpolation(nn.Module):
    # stand-in for CAIN's residual channel-attention groups: same head/tail convs
    def __init__(self, n_feats):
        super(Interpolation, self).__init__()
        self.headConv = nn.Conv2d(n_feats * 2, n_feats, kernel_size=3, padding=1)
        self.tailConv = nn.Conv2d(n_feats, n_feats, kernel_size=3, padding=1)

    def forward(self, x0, x1):
        x = torch.cat([x0, x1], dim=1)
        x = self.headConv(x)
        return self.tailConv(torch.relu(x)) + x


class Encoder(nn.Module):
    def __init__(self, in_channels=3, depth=3):
        super(Encoder, self).__init__()
        self.shuffler = PixelShuffle(1 / 2**depth)
        self.interpolate = Interpolation(in_channels * (4**depth))

    def forward(self, x1, x2):
        feats1 = self.shuffler(x1)
        feats2 = self.shuffler(x2)
        return self.interpolate(feats1, feats2)


class Decoder(nn.Module):
    def __init__(self, depth=3):
        super(Decoder, self).__init__()
        self.shuffler = PixelShuffle(2**depth)

    def forward(self, feats):
        return self.shuffler(feats)


class CAIN(nn.Module):
    def __init__(self, depth=3):
        super(CAIN, self).__init__()
        self.encoder = Encoder(in_channels=3, depth=depth)
        self.decoder = Decoder(depth=depth)

    def forward(self, x1, x2):
        # (sub_mean, which subtracts the mean from the inputs in place, is left out)
        if not self.training:
            paddingInput, paddingOutput = InOutPaddings(x1)
            x1 = paddingInput(x1)
            x2 = paddingInput(x2)

        feats = self.encoder(x1, x2)
        out = self.decoder(feats)

        if not self.training:
            out = paddingOutput(out)
        return out, feats


def make_model():
    return CAIN(depth=3).eval()


def example_inputs():
    return (torch.randn(1, 3, 100, 120), torch.randn(1, 3, 100, 120))


def other_inputs():
    return [(torch.randn(1, 3, 130, 70), torch.randn(1, 3, 130, 70)),
            (torch.randn(1, 3, 96, 200), torch.randn(1, 3, 96, 200))]


def probe_inputs():
    return other_inputs()
