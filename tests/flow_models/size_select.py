"""ONX614: padding to a multiple of 8 computed with branches that only pick numbers (Metric3D's
`if pad_h == self.patch_size: pad_h = 0`, CAIN's `if w != (w >> 7) << 7: ... else: ...`). Both
exporters keep the example's branch; `_onnx_size_select` keeps the choice symbolic (dynamo) or a
graph value (legacy)."""
import torch
import torch.nn.functional as F
from torch import nn


class PadToMultiple(nn.Module):
    def forward(self, x):
        pad_h = 8 - x.shape[2] % 8
        if pad_h == 8:
            pad_h = 0
        if x.shape[3] % 8 != 0:
            pad_w = 8 - x.shape[3] % 8
        else:
            pad_w = 0
        return F.pad(x, (0, pad_w, 0, pad_h)) * 2


def make_model():
    torch.manual_seed(0)
    return PadToMultiple()


def example_inputs():
    return (torch.randn(2, 3, 16, 20),)


def probe_inputs():
    return [(torch.randn(1, 3, 13, 16),), (torch.randn(3, 3, 9, 11),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
