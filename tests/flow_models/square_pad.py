"""ONX403 on sizes: padding an image to a square of its longer side. While the legacy exporter
traces, `max(h, w)` compares two size tensors once and keeps the export-time winner: silently
wrong when the other side is longer. Fixed safely: `_onnx_size_extreme` is the builtin outside
the legacy trace, the stacked sizes' max inside it."""
import torch
from torch import nn


class SquarePad(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        h, w = x.shape[-2:]
        side = max(h, w)
        y = self.conv(x)
        return torch.nn.functional.pad(y, (0, side - w, 0, side - h)) * (side / min(h, w))


def make_model():
    torch.manual_seed(0)
    return SquarePad()


def example_inputs():
    return (torch.randn(2, 3, 8, 6),)


def probe_inputs():
    return [(torch.randn(1, 3, 5, 9),), (torch.randn(3, 3, 7, 7),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
