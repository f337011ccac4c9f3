"""Ties at an order-selecting op: a generated probe the exported model cannot be judged on.

torch.topk and an unstable torch.sort leave the order of equal values unspecified (ATen's CPU
kernels, GPUs and onnxruntime's TopK each pick their own), so on an input where the values they
select tie, a faithful export may return the tied elements in another order, and everything
computed from the indices (the boxes of tied scores) differs. A generated probe that draws such
an input proves nothing either way: verify.py draws it again instead of failing the export on it.
User probes and the export inputs are always compared.

Worker side (imports torch).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import torch
from torch.overrides import TorchFunctionMode


_TOPK = {torch.topk, torch.Tensor.topk}
_SORT = {torch.sort, torch.Tensor.sort, torch.argsort, torch.Tensor.argsort}


def _topk_ties(values: torch.Tensor, k: int, dim: int, largest: bool) -> bool:
    """The k selected values, or the k-th and the first one left out, include two equal values."""
    if values.dim() == 0 or not values.is_floating_point() and values.dtype not in _INTEGERS:
        return False
    ordered = values.sort(dim=dim, descending=largest).values.narrow(dim, 0, min(k + 1, values.shape[dim]))
    return _adjacent_equal(ordered, dim)


def _adjacent_equal(ordered: torch.Tensor, dim: int) -> bool:
    if ordered.shape[dim] < 2:
        return False
    size = ordered.shape[dim]
    return bool((ordered.narrow(dim, 0, size - 1) == ordered.narrow(dim, 1, size - 1)).any())


_INTEGERS = {torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64}


class _TieFinder(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.found = ""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not self.found and (func in _TOPK or func in _SORT):
            try:
                self.found = self._tied(func, args, kwargs)
            except Exception:  # noqa: BLE001 - an unusual call: the op itself reports its own errors
                pass
        return func(*args, **kwargs)

    @staticmethod
    def _tied(func, args, kwargs) -> str:
        values = args[0]
        if not isinstance(values, torch.Tensor) or values.numel() < 2:
            return ""
        if func in _TOPK:
            k = kwargs.get("k", args[1] if len(args) > 1 else None)
            dim = kwargs.get("dim", args[2] if len(args) > 2 else -1)
            largest = kwargs.get("largest", args[3] if len(args) > 3 else True)
            return "torch.topk" if _topk_ties(values.detach(), int(k), dim, largest) else ""
        if kwargs.get("stable"):
            return ""  # a stable sort defines the order of equal values
        dim = kwargs.get("dim", args[1] if len(args) > 1 and isinstance(args[1], int) else -1)
        ordered = values.detach().sort(dim=dim).values
        return "torch.sort" if _adjacent_equal(ordered, dim) else ""


def ties_at_selection(model: torch.nn.Module, args: tuple) -> str:
    """The order-selecting op ("torch.topk") that meets equal values on ``args`` in an eager run of
    ``model``, or ""."""
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    finder = _TieFinder()
    try:
        with torch.no_grad(), finder:
            model(*cloned)
    except Exception:  # noqa: BLE001 - eager ran on this probe before; a second failure proves nothing
        return ""
    return finder.found


def drawn_without_ties(model: torch.nn.Module, args: tuple, redraw: Callable[[int], tuple],
                       check: Callable[[tuple], object], failed, attempts: int = 3):
    """A generated probe's failed result (verify.ProbeResult) on ``args``: where an order-selecting
    op met equal values there, the probe drawn again (``redraw(attempt)``, up to ``attempts`` times)
    until its values do not tie, and ``check``'s result on that draw, noted. Still tied every time,
    or no tie to begin with: the failure stands."""
    tied = ties_at_selection(model, args)
    for attempt in range(1, attempts + 1):
        if not tied:
            return failed
        other = redraw(attempt)
        again = ties_at_selection(model, other)
        if not again:
            result = check(other)
            note = f"drawn again: the first draw tied at {tied} (the order of equal values is unspecified)"
            return replace(result, note="; ".join(filter(None, [note, result.note])))
        tied = again
    return failed
