"""traininglib's index-based connected-components labelling of a binary mask (segmentation post-processing): it
labels the foreground pixels found with `torch.argwhere`, gathers the 3x3 neighbour labels through a nested-list
`torch.tensor` of offsets and propagates the max label. The commit "minor changes for onnx" swapped `torch.argwhere`
for `torch.nonzero` and flattened the offsets literal ("NOTE: as flat list because of onnx"): the exporter has no
symbolic for aten::argwhere and cannot emit the nested int-list constant of the scripted function.

Source: https://github.com/alexander-g/traininglib/commit/5e4d11c2627480a382a8e9339829a4253c81d687
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "height", 1: "width"}}
BLIND = "operators-57"


# traininglib/segmentation/connectedcomponents.py before 5e4d11c: initial labels and one propagation step
@torch.jit.script_if_tracing
def connected_components_indexed_step(x:torch.Tensor, start:int = 1) -> torch.Tensor:
    '''Connected components algorithm'''
    assert x.dtype == torch.bool
    assert x.ndim == 2

    # pad borders
    x = x.to(torch.int64)
    x = torch.nn.functional.pad(x, [1, 1, 1, 1])

    # [N,2]
    indices = torch.argwhere(x)
    labels  = torch.arange(start, len(indices)+start, device=x.device)

    x[indices[...,0], indices[...,1]] = labels

    # [9,2]
    offsets = torch.tensor([
        [ 0, 0],
        [-1, 0],
        [-1, 1],
        [ 0, 1],
        [ 1, 1],
        [ 1, 0],
        [ 1,-1],
        [ 0,-1],
        [-1,-1],
    ], device=x.device)
    # [N,9,2]
    offset_indices = indices[:,None,:] + offsets[None,:,:]

    offset_labels = x[offset_indices[...,0], offset_indices[...,1]]
    new_labels = offset_labels.max(dim=1).values
    x[indices[...,0], indices[...,1]] = new_labels

    # remove padding
    x = x[1:-1, 1:-1]
    return x


class MaskInstanceLabeler(nn.Module):
    """Thresholds a probability map and labels its connected foreground regions."""

    def forward(self, x):
        return connected_components_indexed_step(x > 0.5)


def make_model():
    return MaskInstanceLabeler().eval()


def example_inputs():
    return (torch.rand(24, 32),)


def other_inputs():
    return [(torch.rand(40, 20),), (torch.rand(17, 33),)]


def probe_inputs():
    return other_inputs()
