"""Issue 17's partial fix: four export problems, three with a fix (NumPy, an `if` on a tensor,
linalg.inv) and one whose fix helps torch.export only (`int(s * 0.75)` in a reshape, ONX203's
`torch.sym_int`; issue 17's `int(s * 0.5)` has an exact one, `s // 2`). Both exporters fail loudly
on the original; with every fix applied the export succeeds and the reshape's size is a
constant: SILENTLY-WRONG on other sizes. `export --fix` must keep the loud failure.
"""

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
        return h.reshape(h.shape[0], int(s * 0.75), -1)


def example_inputs():
    return (torch.randn(2, 6, 4),)


DYNAMIC = {"x": {1: "seq"}}
