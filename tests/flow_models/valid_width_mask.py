"""ONX603 on MMOCR's valid-width masks (SATRN's encoder, SAR's 2-D attention): a list of one ratio
per image, `[0.7 for _ in range(feat.size(0))]` here (1.0 upstream when no image meta is given),
and a loop filling each image's mask up to `min(w, math.ceil(w * valid_ratio))` along the width.
Both unroll at the export's batch: torch.export fails on the dynamic batch, the legacy exporter
keeps the example's rows. Fixed (unsafe: one non-negative bound per row) by the bound in float64
on all rows at once and one masked fill, then the list built as `torch.full` of the batch size."""
import math

import torch
from torch import nn


class ValidWidthEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(4, 4, 1)

    def forward(self, feat, img_metas=None):
        valid_ratios = [0.7 for _ in range(feat.size(0))]
        if img_metas is not None:
            valid_ratios = [img_meta.get("valid_ratio", 1.0) for img_meta in img_metas]
        feat = self.proj(feat)
        n, c, h, w = feat.size()
        mask = feat.new_zeros((n, h, w))
        for i, valid_ratio in enumerate(valid_ratios):
            valid_width = min(w, math.ceil(w * valid_ratio))
            mask[i, :, :valid_width] = 1
        scores = feat.masked_fill(mask[:, None] == 0, float("-inf")).flatten(2).softmax(-1)
        return (scores * feat.flatten(2)).sum(-1)


def make_model():
    torch.manual_seed(0)
    return ValidWidthEncoder()


def example_inputs():
    return (torch.randn(2, 4, 3, 10),)


def probe_inputs():
    return [(torch.randn(3, 4, 2, 7),), (torch.randn(1, 4, 5, 13),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
