"""ONX407 over any points: dsntnn's soft-argmax (MobilePose) builds its coordinate grid with
`torch.linspace(-(n - 1) / n, (n - 1) / n, n)` from the heatmap's sizes. torch.export reads
linspace's `steps` as a plain int: the exported grid keeps the example's size and onnxruntime
fails on other heatmap sizes. Fixed safely: eager (and the legacy exporter) run torch.linspace,
torch.export builds the same points from an arange."""
import torch
from torch import nn


def normalized_linspace(length, dtype=None, device=None):
    first = -(length - 1) / length
    last = (length - 1) / length
    return torch.linspace(first, last, length, dtype=dtype, device=device)


class SoftArgmax(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, images):
        heatmaps = self.head(images).flatten(2).softmax(-1).view(images.shape[0], 4, images.shape[2], images.shape[3])
        ys = normalized_linspace(heatmaps.shape[2], dtype=heatmaps.dtype, device=heatmaps.device)
        xs = normalized_linspace(heatmaps.shape[3], dtype=heatmaps.dtype, device=heatmaps.device)
        x = (heatmaps.sum(2) * xs).sum(-1)
        y = (heatmaps.sum(3) * ys).sum(-1)
        return torch.stack([x, y], -1)


def make_model():
    torch.manual_seed(0)
    return SoftArgmax()


def example_inputs():
    return (torch.randn(2, 3, 12, 16),)


def probe_inputs():
    return [(torch.randn(3, 3, 20, 9),), (torch.randn(1, 3, 7, 24),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
