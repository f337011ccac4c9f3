"""Export-time repair `ellipsis_expanded`: an assignment through an index with `...` and a list
or tensor index (SparseDrive's `output[..., self.refine_state] = ...`) runs with the `...` spelled
out as the `:` slices it stands for. The legacy exporter translates `index_put_` of the Ellipsis
form into a graph onnx.checker rejects ("Node (/Add)'s input 0 is marked single but has an empty
string in the graph"), while the same write with explicit slices exports (measured on torch 2.13).
The tensor's rank is known when the assignment runs, so the key means the same; eager PyTorch is
untouched (the mode is entered only while exporting)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch
from torch.overrides import TorchFunctionMode


def expanded_key(key, rank: int):
    """``key`` with its Ellipsis replaced by the slices it stands for, or ``key`` itself when it
    has none, or none to expand safely (a bool index, whose rank the count would need)."""
    if not isinstance(key, tuple) or sum(item is Ellipsis for item in key) != 1:
        return key
    if any(isinstance(item, torch.Tensor) and item.dtype == torch.bool for item in key):
        return key
    # None and a Python bool add a dim, every other item (an int, a slice, a list or an integer
    # tensor, whatever its own shape) consumes one
    consumed = sum(item is not None and item is not Ellipsis and not isinstance(item, bool) for item in key)
    if consumed > rank:
        return key  # let the original raise its own error
    at = next(i for i, item in enumerate(key) if item is Ellipsis)  # by identity: `==` on an array raises
    return key[:at] + (slice(None),) * (rank - consumed) + key[at + 1:]


class _EllipsisExpanded(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__setitem__ and len(args) == 3 and isinstance(args[0], torch.Tensor):
            args = (args[0], expanded_key(args[1], args[0].dim()), args[2])
        return func(*args, **(kwargs or {}))


@contextmanager
def ellipsis_expanded(model=None) -> Iterator[None]:
    with _EllipsisExpanded():
        yield
