"""min-dalle (DALL-E mini) VQGAN detokenizer: the image grid is recovered from the token batch with
`grid_size = int(sqrt(z.shape[0]))` and the decoded images are tiled with `z.view([grid_size, grid_size, ...])`.
The TensorRT port exports one ONNX per grid (`detokenizer.dx = 1; detokenizer.dy = int(sys.argv[1])`,
`vqgan1x{dy}.onnx`) with the grid hard-coded as module attributes, because the size math does not survive export.

Source: https://github.com/Airplaneless/dalle-trt-inference/blob/master/onnx_vqgan.py
"""
from math import sqrt

import torch
from torch import nn, FloatTensor, LongTensor

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"image_tokens": {0: "image_count"}}
BLIND = "domains-48"


class Upsample(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.upsample = torch.nn.UpsamplingNearest2d(scale_factor=2)
        self.conv = nn.Conv2d(n, n, 3, padding=1)

    def forward(self, x: FloatTensor) -> FloatTensor:
        x = self.upsample.forward(x.to(torch.float32))
        x = self.conv.forward(x)
        return x


class Decoder(nn.Module):
    """Trimmed: min-dalle's decoder has ResnetBlocks/attention per level; 4 nearest x2 upsamplings kept."""

    def __init__(self, n=2 ** 3):
        super().__init__()
        self.conv_in = nn.Conv2d(2 ** 8, n, 3, padding=1)
        self.up = nn.ModuleList([Upsample(n) for _ in range(4)])
        self.norm_out = nn.GroupNorm(2, n)
        self.conv_out = nn.Conv2d(n, 3, 3, padding=1)

    def forward(self, z: FloatTensor) -> FloatTensor:
        z = self.conv_in.forward(z)
        for i in reversed(range(4)):
            z = self.up[i].forward(z)
        z = self.norm_out.forward(z)
        z *= torch.sigmoid(z)
        z = self.conv_out.forward(z)
        return z


class VQGanDetokenizer(nn.Module):
    def __init__(self):
        super().__init__()
        vocab_count, embed_count = 2 ** 14, 2 ** 8
        self.vocab_count = vocab_count
        self.embedding = nn.Embedding(vocab_count, embed_count)
        self.post_quant_conv = nn.Conv2d(embed_count, embed_count, 1)
        self.decoder = Decoder()

    def forward(self, is_seamless: bool, z: LongTensor) -> FloatTensor:
        grid_size = int(sqrt(z.shape[0]))
        token_count = grid_size * 2 ** 4

        if is_seamless:
            z = z.view([grid_size, grid_size, 2 ** 4, 2 ** 4])
            z = z.flatten(1, 2).transpose(1, 0).flatten(1, 2)
            z = z.flatten().unsqueeze(1)
            z = self.embedding.forward(z)
            z = z.view((1, token_count, token_count, 2 ** 8))
        else:
            z = self.embedding.forward(z)
            z = z.view((z.shape[0], 2 ** 4, 2 ** 4, 2 ** 8))

        z = z.permute(0, 3, 1, 2).contiguous()
        z = self.post_quant_conv.forward(z)
        z = self.decoder.forward(z)
        z = z.permute(0, 2, 3, 1)
        z = z.clip(0.0, 1.0) * 255

        if is_seamless:
            z = z[0]
        else:
            z = z.view([grid_size, grid_size, 2 ** 8, 2 ** 8, 3])
            z = z.flatten(1, 2).transpose(1, 0).flatten(1, 2)

        return z


class ImageGridFromTokens(nn.Module):
    """MinDalle.image_grid_from_tokens: image_tokens [grid_size ** 2, 256] -> one tiled RGB grid."""

    def __init__(self, is_seamless=False):
        super().__init__()
        self.is_seamless = is_seamless
        self.detokenizer = VQGanDetokenizer()

    def forward(self, image_tokens):
        return self.detokenizer.forward(self.is_seamless, image_tokens)


def make_model():
    return ImageGridFromTokens().eval()


def example_inputs():
    return (torch.randint(0, 2 ** 14, (4, 256)),)        # grid_size 2


def other_inputs():
    return [(torch.randint(0, 2 ** 14, (9, 256)),),      # grid_size 3
            (torch.randint(0, 2 ** 14, (1, 256)),)]      # grid_size 1


def probe_inputs():
    return other_inputs()
