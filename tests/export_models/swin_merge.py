"""A Swin patch merge that pads odd sizes: `if pad_input:` makes the dynamo exporter guard on
the parity of the height and width, so the exported model only works for even sizes."""

import torch
import torch.nn.functional as F
from torch import nn


class PatchMerging(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, 4, 4)
        self.norm = nn.LayerNorm(4 * dim)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        x = self.proj(img).permute(0, 2, 3, 1)
        H, W = x.shape[1], x.shape[2]
        pad_input = (H % 2 == 1) or (W % 2 == 1)
        if pad_input:
            x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
        x0 = x[:, 0::2, 0::2, :]
        x1 = x[:, 1::2, 0::2, :]
        x2 = x[:, 0::2, 1::2, :]
        x3 = x[:, 1::2, 1::2, :]
        return self.norm(torch.cat([x0, x1, x2, x3], -1))


def make_model() -> nn.Module:
    torch.manual_seed(0)
    return PatchMerging()


def example_inputs():
    return (torch.randn(1, 3, 32, 32),)


DYNAMIC = {"img": {2: "height", 3: "width"}}


def probe_inputs():
    return [(torch.randn(1, 3, 36, 36),)]
