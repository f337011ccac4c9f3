"""SAFMN's feature modulation (chaiNNer#2504): each level max-pools to a fraction of the input's own
size, `F.adaptive_max_pool2d(x, (h // 2**i, w // 2**i))`, then resizes back. The legacy exporter
refuses the pooling ("output_size is not constant"), and torch.export's decomposition is unrolled
over the example's bin count; ONX509's `_onnx_adaptive_max_pool2d` gathers each bin's positions
from the symbolic size instead."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}


class SpatialModulation(nn.Module):
    def __init__(self, dim=9, levels=3):
        super().__init__()
        self.levels = levels
        self.mix = nn.ModuleList(nn.Conv2d(dim // levels, dim // levels, 3, padding=1) for _ in range(levels))
        self.out = nn.Conv2d(dim, dim, 1)

    def forward(self, x):
        h, w = x.size()[-2:]
        parts = []
        for i, chunk in enumerate(x.chunk(self.levels, dim=1)):
            if i > 0:
                pooled = F.adaptive_max_pool2d(chunk, (h // 2**i, w // 2**i))
                chunk = F.interpolate(self.mix[i](pooled), size=(h, w), mode="nearest")
            else:
                chunk = self.mix[i](chunk)
            parts.append(chunk)
        return self.out(torch.cat(parts, dim=1)) * x


def make_model():
    torch.manual_seed(0)
    return SpatialModulation().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 9, 16, 20),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(1, 9, 23, 31),), (torch.randn(3, 9, 12, 40),)]
