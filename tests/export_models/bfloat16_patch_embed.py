"""A ViT patch embedding run in bfloat16 (TrOCR's encoder, SAM2's image encoder): a convolution,
a class token expanded over the batch and a position table added."""
import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, 4, stride=4)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))

    def forward(self, pixel_values):
        x = self.proj(pixel_values).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        return torch.cat([cls, x], dim=1)


def make_model():
    torch.manual_seed(0)
    return PatchEmbed().to(torch.bfloat16).eval()


def example_inputs():
    return (torch.randn(2, 3, 16, 24, dtype=torch.bfloat16),)


def probe_inputs():
    return [(torch.randn(3, 3, 32, 16, dtype=torch.bfloat16),)]
