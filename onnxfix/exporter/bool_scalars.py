"""Export-time repair `bool_scalars_as_ints`: arithmetic between a tensor and a Python bool
(BEVFormer's and MapTR's `bev_queries + can_bus * self.use_can_bus`, a flag from the config) runs
with the bool as the int it equals. The legacy tracer records `aten::mul(Tensor, bool)`, an overload
TorchScript has no schema for, and fails in alias analysis ("We don't have an op for aten::mul but
it isn't a special case"). For a tensor that is not bool, `t * True` and `t * 1` give the same
values and dtype (a Python scalar promotes neither); a bool tensor times or plus a flag is computed
on its uint8 0 / 1 and read back as bool (`b * True` is bool, `b * 1` would be int64; the JIT folds a
0-d bool tensor back into the scalar). A bool fill value (`masked_fill(mask, True)`) is the int it equals,
which the fill writes in the tensor's own dtype. Eager PyTorch is untouched: the mode runs only while
exporting."""

from __future__ import annotations

import operator
from contextlib import contextmanager
from typing import Iterator

import torch
from torch.overrides import TorchFunctionMode

_ARITHMETIC = {
    getattr(torch.Tensor, f"__{prefix}{name}__") for name in ("add", "mul", "truediv", "floordiv", "mod", "pow")
    for prefix in ("", "r")
} | {torch.add, torch.mul, torch.div, torch.true_divide, torch.floor_divide, torch.remainder,
     torch.Tensor.add, torch.Tensor.mul, torch.Tensor.div, torch.Tensor.remainder}  # not sub: eager refuses a bool there


# on a bool tensor, these give a bool tensor: computed on uint8 0 / 1 and read back as bool
_BOOL_RESULTS = {torch.Tensor.__mul__, torch.Tensor.__rmul__, torch.Tensor.__add__, torch.Tensor.__radd__,
                 torch.mul, torch.add, torch.Tensor.mul, torch.Tensor.add}


# a Python bool given as the value a tensor is filled with (`aten::masked_fill(Tensor, Tensor, bool)`:
# no TorchScript schema either)
_FILLS = {torch.masked_fill, torch.Tensor.masked_fill, torch.Tensor.masked_fill_}


class _BoolScalarsAsInts(TorchFunctionMode):
    def __init__(self, counts: dict):
        super().__init__()
        self.counts = counts  # read by decompose.py as the export ends: the calls changed

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _ARITHMETIC and len(args) == 2:
            tensors = [a for a in args if isinstance(a, torch.Tensor)]
            if tensors and any(isinstance(a, bool) for a in args) and not kwargs:
                tensor = tensors[0]
                ints = tuple(operator.index(a) if isinstance(a, bool) else a for a in args)
                if tensor.dtype != torch.bool:
                    self._count()
                    return func(*ints)
                if func in _BOOL_RESULTS:  # `b * flag`, `b + flag`: the same bools (the JIT folds a bool tensor back)
                    self._count()
                    return func(*(a.to(torch.uint8) if a is tensor else a for a in ints)).to(torch.bool)
        if func in _FILLS and len(args) == 3 and isinstance(args[2], bool) and not kwargs:
            # `mask.masked_fill(pad, True)`: the fill is written into the tensor in its own dtype
            # (True is 1 in any of them, and a bool tensor stays bool), so the int gives the same tensor
            self._count()
            return func(*args[:2], int(args[2]))
        return func(*args, **kwargs)

    def _count(self) -> None:
        self.counts["bool_scalars_as_ints"] = self.counts.get("bool_scalars_as_ints", 0) + 1


@contextmanager
def bool_scalars_as_ints(model=None) -> Iterator[dict]:
    counts: dict = {}
    with _BoolScalarsAsInts(counts):
        yield counts
