"""ONX205 through a 2-D list of sizes in a scripted helper: Deformable-DETR's encoder builds its
per-level `spatial_shapes` with `torch.tensor([[h0, w0], [h1, w1], ...])` in a
`@torch.jit.script` function and flips it into the offset normaliser. The legacy exporter
inlines the script's list construction into a graph that onnxruntime rejects (a Slice on axis 1
of a rank-1 tensor); the same tensor built by Python tracing would be a constant. Fixed safely by
stacking each row's sizes as tensors, which TorchScript compiles and both exporters keep
dynamic."""
from typing import List

import torch
from torch import nn


@torch.jit.script
def spatial_shapes_helper(embeds: List[torch.Tensor]) -> torch.Tensor:
    return torch.tensor([
        [embeds[0].shape[2], embeds[0].shape[3]],
        [embeds[1].shape[2], embeds[1].shape[3]],
    ], device=embeds[0].device)


class ScriptedLevelShapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.down = nn.Conv2d(8, 8, 3, 2, 1)

    def forward(self, images):
        e0 = self.stem(images)
        e1 = self.down(e0)
        spatial_shapes = spatial_shapes_helper([e0, e1])
        offset_normalizer = torch.flip(spatial_shapes, [1])
        memory = torch.cat([e0.flatten(2), e1.flatten(2)], dim=2).transpose(1, 2)
        return memory / offset_normalizer.sum(), spatial_shapes, offset_normalizer


def make_model():
    torch.manual_seed(0)
    return ScriptedLevelShapes()


def example_inputs():
    return (torch.randn(2, 3, 40, 56),)


def probe_inputs():
    return [(torch.randn(3, 3, 32, 24),), (torch.randn(1, 3, 64, 48),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
