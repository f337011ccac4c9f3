import torch
from torch import nn

from mfpkg import Backbone

from .layers import Block
from .ops.shapes import flatten_tokens


class Model(nn.Module):
    def __init__(self, width: int = 4):
        super().__init__()
        self.backbone = Backbone(width)
        self.blocks = nn.ModuleList([Block(width) for _ in range(2)])

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        x = self.backbone(x)
        for block in self.blocks:
            x = block(x)
        return flatten_tokens(x, n)
