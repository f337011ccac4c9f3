"""ONX101 on NumPy grids built from sizes: `np.linspace` over the heatmap width and height, their
`np.meshgrid` (NumPy indexes "xy" by default, torch "ij") and an "ij" grid of cell offsets
(YOLO-style). torch.export cannot convert the object array NumPy makes of symbolic sizes, and
the legacy exporter bakes the export-time grids in. Fixed by torch.linspace (kept behind
`torch.onnx.is_in_onnx_export()`: NumPy computes its points in float64 its own way) and
`torch.meshgrid(..., indexing="xy")`."""
import numpy as np
import torch
from torch import nn


class HeatmapGrid(nn.Module):
    def forward(self, heatmaps):
        h, w = heatmaps.shape[-2:]
        xs = np.linspace(-1.0, 1.0, w)
        ys = np.linspace(-1.0, 1.0, num=h)
        gx, gy = np.meshgrid(xs, ys)
        grid = torch.from_numpy(np.stack([gx, gy], axis=-1)).float()
        ny, nx = heatmaps.shape[2], heatmaps.shape[3]
        yv, xv = np.meshgrid(np.arange(ny), np.arange(nx), indexing="ij")
        cells = torch.from_numpy(np.stack((xv, yv), 2)).float()
        return heatmaps.mean(1)[..., None] * grid + cells


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return HeatmapGrid()


def example_inputs():
    return (torch.randn(2, 3, 5, 7),)


def probe_inputs():
    return [(torch.randn(1, 3, 8, 4),), (torch.randn(3, 3, 6, 6),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "w"}}
