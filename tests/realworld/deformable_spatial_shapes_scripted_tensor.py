"""Deformable-attention style multi-scale encoder input: the per-level (H, W) table `spatial_shapes` is built by a
`@torch.jit.script` helper with `torch.tensor([[embeds[i].shape[2], embeds[i].shape[3]], ...])` and flipped into
the offset normalizer; the report says the ONNX export of these dynamic shapes fails (ShapeInferenceError
"Unexpected axis value: 1. Expected range [-1, 1)").

Source: https://github.com/pytorch/pytorch/issues/110693
"""
from typing import List

import torch
from torch import nn

CLASS = "constant-tensor"
FAMILY = "tensor_data"
DYNAMIC = {"images": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-9"


@torch.jit.script
def spatial_shapes_helper(embeds: List[torch.FloatTensor]) -> torch.LongTensor:
    return torch.tensor([
        [embeds[0].shape[2], embeds[0].shape[3]],
        [embeds[1].shape[2], embeds[1].shape[3]],
        [embeds[2].shape[2], embeds[2].shape[3]],
    ], device=embeds[0].device)


class MyShaphesModule(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(
        self,
        input_embeds0,
        input_embeds1,
        input_embeds2,
    ):
        input_embeds = [input_embeds0, input_embeds1, input_embeds2]
        spatial_shapes: torch.LongTensor = spatial_shapes_helper(input_embeds)
        offset_normalizer: torch.LongTensor = torch.flip(spatial_shapes, [1])

        return spatial_shapes, offset_normalizer


class MultiScaleBackbone(nn.Module):
    """Three-level feature pyramid (strides 8/16/32) feeding the shapes module, as in a Deformable-DETR encoder."""

    def __init__(self, dim=32):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, dim, 3, 2, 1), nn.ReLU(), nn.Conv2d(dim, dim, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(dim, dim, 3, 2, 1), nn.ReLU())
        self.down1 = nn.Sequential(nn.Conv2d(dim, dim, 3, 2, 1), nn.ReLU())
        self.down2 = nn.Sequential(nn.Conv2d(dim, dim, 3, 2, 1), nn.ReLU())
        self.shapes = MyShaphesModule()

    def forward(self, images):
        e0 = self.stem(images)
        e1 = self.down1(e0)
        e2 = self.down2(e1)
        spatial_shapes, offset_normalizer = self.shapes(e0, e1, e2)
        memory = torch.cat([e.flatten(2).transpose(1, 2) for e in (e0, e1, e2)], dim=1)
        return memory, spatial_shapes, offset_normalizer


def make_model():
    return MultiScaleBackbone().eval()


def example_inputs():
    return (torch.randn(1, 3, 296, 464),)


def other_inputs():
    return [(torch.randn(2, 3, 256, 320),), (torch.randn(1, 3, 384, 224),)]


def probe_inputs():
    return other_inputs()
