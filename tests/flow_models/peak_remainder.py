"""ONX515: a heatmap peak's column as `index % width` (SLEAP's peak finder, TimesFM's rotation):
the dynamo exporter's aten.remainder.Scalar needs a constant divisor and fails on a dynamic width."""
import torch
from torch import nn


class Peaks(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.head = nn.Conv2d(channels, 2, 1)

    def forward(self, image: torch.Tensor):
        maps = self.head(image)
        batch, parts, height, width = maps.shape
        indices = maps.reshape(batch, parts, -1).argmax(-1)
        columns = indices % width
        return columns, maps.amax((2, 3))


def make_model():
    torch.manual_seed(0)
    return Peaks().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 6, 7),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 3, 5, 9),), (torch.randn(1, 3, 8, 4),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
