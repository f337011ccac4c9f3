"""ONX407: position ids as `torch.linspace(0, n - 1, steps=n)` over a dynamic size (ComfyUI's
Flux image ids). Fixed (unsafely: exact while the dtype holds the
integers) as `torch.arange(n, dtype=...)`."""
import torch
from torch import nn


class ImageIds(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 4)

    def forward(self, x):
        bs, c, h, w = x.shape
        rows = torch.linspace(0, h - 1, steps=h, dtype=x.dtype).view(1, h, 1, 1).expand(bs, h, w, 1)
        cols = torch.linspace(0, w - 1, steps=w, dtype=x.dtype).view(1, 1, w, 1).expand(bs, h, w, 1)
        ids = torch.cat([rows, cols, torch.ones_like(rows)], dim=-1)
        return x.permute(0, 2, 3, 1)[..., :4] + self.proj(ids)


def make_model():
    torch.manual_seed(0)
    return ImageIds()


def example_inputs():
    return (torch.randn(2, 4, 6, 8),)


def probe_inputs():
    return [(torch.randn(3, 4, 10, 7),), (torch.randn(1, 4, 5, 12),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
