"""ONX609, the memo cache: a RoPE position getter (Depth Anything 3's) keeps a dict of position
grids keyed by the patch grid and fills it on a miss. Exported after an eager call at the example's
size, both exporters find the entry: the legacy trace keeps the cached grid as a constant (other
sizes fail in onnxruntime), torch.export pins the grid's sizes. Fixed safely: the grid is
recomputed under export (eager keeps its cache), and the export run leaves the dict as it was."""
import torch
from torch import nn


class PositionGetter:
    def __init__(self):
        self.position_cache = {}

    def __call__(self, height, width):
        if (height, width) not in self.position_cache:
            rows = torch.arange(height).unsqueeze(1).expand(height, width)
            cols = torch.arange(width).unsqueeze(0).expand(height, width)
            self.position_cache[height, width] = torch.stack([rows, cols], -1).reshape(-1, 2)
        return self.position_cache[height, width]


class Backbone(nn.Module):
    def __init__(self, patch=4, dim=8):
        super().__init__()
        self.patch = patch
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.position_getter = PositionGetter()
        self.pos_proj = nn.Linear(2, dim)

    def forward(self, x):
        tokens = self.embed(x).flatten(2).transpose(1, 2)
        pos = self.position_getter(x.shape[2] // self.patch, x.shape[3] // self.patch)
        return tokens + self.pos_proj(pos.float())


def make_model():
    torch.manual_seed(0)
    return Backbone()


def example_inputs():
    return (torch.randn(2, 3, 16, 12),)


def probe_inputs():
    return [(torch.randn(3, 3, 20, 16),), (torch.randn(1, 3, 8, 24),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
