"""ONX101 on NumPy moves of elements over sizes from the input: OpenPifPaf's index field
(`np.indices(shape)` flipped to (x, y), memoised per feature size with `functools.lru_cache`) and
`np.roll`, `np.rot90`, `np.flipud`, `np.fliplr`, `np.flip`, `np.repeat`, `np.broadcast_to` of the
input's array. torch.export traces these through its own NumPy layer (OK); the legacy exporter
bakes the export-time arrays in. Fixed by their torch twins, the same elements in the same places
(`np.indices` as a stacked "ij" meshgrid of aranges, kept behind `torch.onnx.is_in_onnx_export()`:
for an empty shape torch.meshgrid raises where NumPy returns an empty array); the legacy exporter
then needs onnxfix's `_onnx_rot90` / `_onnx_flipud` / `_onnx_fliplr` (ONX519, a later fix round)."""
import functools

import numpy as np
import torch
from torch import nn


@functools.lru_cache(maxsize=16)
def index_field(shape):
    yx = np.indices(shape, dtype=np.float32)
    xy = np.flip(yx, axis=0)
    return torch.from_numpy(xy.copy())


class NumpyMoves(nn.Module):
    def forward(self, x):
        a = x.numpy()
        rolled = np.roll(a, 1, axis=-1)
        turned = np.flipud(np.rot90(a, axes=(2, 3)))
        mirrored = np.flip(np.fliplr(a), (2, -1))
        repeated = np.repeat(a, 2, axis=1)
        spread = np.broadcast_to(a[:, :1], a.shape)
        moved = (torch.from_numpy(rolled) + torch.from_numpy(turned.copy()) + torch.from_numpy(mirrored.copy())
                 + torch.from_numpy(spread.copy()))
        return moved[:, :2] + index_field(x.shape[-2:]), torch.from_numpy(repeated)


def make_model():
    torch.manual_seed(0)  # the inputs are drawn after it
    return NumpyMoves()


def example_inputs():
    return (torch.randn(2, 3, 5, 5),)


def probe_inputs():
    return [(torch.randn(1, 3, 7, 7),), (torch.randn(3, 3, 4, 4),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "h"}}
