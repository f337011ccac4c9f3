"""DNTextSpotter's mask_out_padding: per level, `int(np.ceil(float(h) / self.feature_strides[idx]))`
with `h` taken out of a list of image sizes (statically no size) and the strides an item of a list
built from the backbone's dict of int literals. The first export specializes the height at that
line; dropping `float()` leaves `int(np.ceil(h / stride))`, which the next export specializes at
the same line again: the loop notes that text's guard lines too, and the ceil division follows."""

import numpy as np
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.strides = {"res4": 4, "res5": 8}


class PaddingMask(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.feature_strides = [self.backbone.strides[f] for f in ["res4", "res5"]]

    def forward(self, x):
        sizes = [(image.shape[-2], image.shape[-1]) for image in x]
        total = x.new_zeros(())
        for idx in range(2):
            for h, w in sizes:
                total = total + x[:, : int(np.ceil(float(h) / self.feature_strides[idx])), : int(np.ceil(float(w) / self.feature_strides[idx]))].sum()
        return total


def make_model():
    return PaddingMask()


def example_inputs():
    return (torch.randn(2, 16, 24),)


def probe_inputs():
    return [(torch.randn(2, 21, 13),)]
