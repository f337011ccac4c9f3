"""Issue 17's partial fix: four export problems, three with a fix (NumPy, an `if` on a tensor,
linalg.inv) and one without (`math.log2(s)` of a size, a float the legacy trace records; issue
17's `int(s * 0.5)` has an exact fix, `s // 2`, and `int(s * 0.75)` now `_onnx_sym_int`). Both
exporters fail loudly on the original; with every fix applied the export succeeds and the log's
value is a constant: SILENTLY-WRONG on other sizes. `export --fix` must keep the loud failure.
"""

import math

import numpy as np
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = x.shape[1]
        h = self.lin(x)
        ramp = np.arange(x.shape[-1], dtype=np.float32)
        h = h * torch.from_numpy(ramp)
        if h.mean() > 100:
            h = h / 100
        gram = h.transpose(1, 2) @ h + 4 * torch.eye(4)
        h = h @ torch.linalg.inv(gram)
        return h * math.log2(s)


def example_inputs():
    return (torch.randn(2, 6, 4),)


DYNAMIC = {"x": {1: "seq"}}
