"""einops before 0.7: `rearrange` registered with allow_in_graph computes its reshape from a recipe
functools.lru_cache keys on `tensor.shape` (blind domains-85, onnxscript#1883): a dynamic dim is a
SymInt, which has no hash. `onnxfix export --fix` runs the cached function uncached while exporting."""
import functools

import torch
from torch import nn


@functools.lru_cache(64)
def _flat_shape(shape):
    return (*shape[:-2], shape[-2] * shape[-1])


def flatten_last(tensor):  # einops 0.6's rearrange: a recipe cached on the shape
    return tensor.reshape(_flat_shape(tensor.shape))


torch._dynamo.allow_in_graph(flatten_last)  # as einops registers its ops


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(12, 5)

    def forward(self, a):
        return self.out(flatten_last(a))


def make_model():
    return Head().eval()


def example_inputs():
    return (torch.randn(2, 7, 3, 4),)


DYNAMIC = {"a": {0: "batch", 1: "points"}}
