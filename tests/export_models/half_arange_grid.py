"""A YOLO-style anchor grid built in half precision (ultralytics' make_anchors with half=True):
`torch.arange(end=w, dtype=torch.float16)`. The legacy exporter writes an ONNX Range on float16,
which onnxruntime refuses on load (no float16 kernel); float32_compute, named by that error,
computes the arange in float32 and rounds it to float16 once, as ATen does."""
import torch
from torch import nn


class HalfGrid(nn.Module):
    def forward(self, x):
        h, w = x.shape[2:]
        sx = torch.arange(end=w, dtype=torch.float16) + 0.5
        sy = torch.arange(end=h, dtype=torch.float16) + 0.5
        gy, gx = torch.meshgrid(sy, sx, indexing="ij")
        return x.permute(0, 2, 3, 1)[..., :2] + torch.stack((gx, gy), -1).float()


def make_model():
    return HalfGrid()


def example_inputs():
    return (torch.randn(2, 3, 5, 7),)


def probe_inputs():
    return [(torch.randn(1, 3, 9, 4),), (torch.randn(3, 3, 6, 6),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "w"}}
