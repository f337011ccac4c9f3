"""Segment-Anything style multimask head compiled with AOTInductor: the best of the K predicted masks is
picked per image with `indices = torch.max(selector, dim=1)[1]` and
`x = torch.stack([x[idx, i] for idx, i in enumerate(indices)])`, a Python loop over the batch that
indexes with each element of the argmax tensor; `torch._export.aot_compile` fails with
GuardOnDataDependentSymNode ("you're trying to get a value out of symbolic int/float whose value is
data-dependent ... The expression we were trying to evaluate is i0").  (The mask/score heads are small
stand-ins for SAM's decoder; the selection lines are the report's.)

Source: https://github.com/pytorch/pytorch/issues/122180
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "indexing"
DYNAMIC = {"image_embeddings": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-83"


class MultimaskSelector(nn.Module):
    def __init__(self, dim=32, num_masks=3):
        super().__init__()
        self.mask_head = nn.Sequential(nn.Conv2d(dim, dim, 3, padding=1), nn.GELU(),
                                       nn.Conv2d(dim, num_masks, 1))
        self.iou_head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(dim, num_masks))

    def forward(self, image_embeddings):
        x = self.mask_head(image_embeddings)          # B x K x H x W
        selector = self.iou_head(image_embeddings)    # B x K
        indices = torch.max(selector, dim=1)[1]
        x = torch.stack([x[idx, i] for idx, i in enumerate(indices)])
        return x


def make_model():
    return MultimaskSelector().eval()


def example_inputs():
    return (torch.randn(2, 32, 16, 16),)


def other_inputs():
    return [(torch.randn(3, 32, 24, 20),), (torch.randn(1, 32, 12, 28),)]


def probe_inputs():
    return other_inputs()
