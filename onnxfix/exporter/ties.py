"""Ties at an order-selecting op: a generated probe the exported model cannot be judged on.

torch.topk and an unstable torch.sort leave the order of equal values unspecified (ATen's CPU
kernels, GPUs and onnxruntime's TopK each pick their own), so on an input where the values they
select tie, a faithful export may return the tied elements in another order, and everything
computed from the indices (the boxes of tied scores) differs. A generated probe that draws such
an input, where eager's own outputs change when the ties are broken the other way, proves nothing
either way: verify.py draws it again instead of failing the export on it. A tie the outputs do not
depend on (only `.values` used) leaves the failure standing. User probes and the export inputs are
always compared.

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
        self.found: set[str] = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _TOPK or func in _SORT:
            try:
                self.found.add(self._tied(func, args, kwargs))
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


class _FlippedTies(TorchFunctionMode):
    """torch.topk and unstable sorts with ties broken the other way: run on the input flipped along
    the dim, indices mapped back (calls inside the handler are not intercepted again)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _TOPK:
            return _flipped_topk(*args, **kwargs)
        if func in _SORT and not kwargs.get("stable"):
            return _flipped_sort(func, *args, **kwargs)
        return func(*args, **kwargs)


def _flipped_topk(values, k, dim=-1, largest=True, sorted=True, **kwargs):
    dim = dim % values.dim()
    found = torch.topk(values.flip(dim), k, dim, largest, sorted)
    return torch.return_types.topk((found.values, values.shape[dim] - 1 - found.indices))


def _flipped_sort(func, values, dim=-1, descending=False, **kwargs):
    dim = dim % values.dim()
    found = torch.sort(values.flip(dim), dim=dim, descending=descending, stable=True)
    indices = values.shape[dim] - 1 - found.indices
    if func in (torch.argsort, torch.Tensor.argsort):
        return indices
    return torch.return_types.sort((found.values, indices))


def _tensors(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _outputs(model: torch.nn.Module, args: tuple, mode: TorchFunctionMode | None) -> list[torch.Tensor]:
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad():
        if mode is None:
            return _tensors(model(*cloned))
        with mode:
            return _tensors(model(*cloned))


def tie_sensitive(model: torch.nn.Module, args: tuple) -> str:
    """The order-selecting op ("torch.topk") that meets equal values on ``args``, when eager's
    outputs change with the ties broken the other way; "" when there is none, or the outputs do not
    depend on how they are broken."""
    tied = ties_at_selection(model, args)
    if not tied:
        return ""
    try:
        usual, flipped = _outputs(model, args, None), _outputs(model, args, _FlippedTies())
    except Exception:  # noqa: BLE001 - an unusual call: no proof the ties matter
        return ""
    same = len(usual) == len(flipped) and all(
        a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or a.is_floating_point()
                                                           and torch.allclose(a, b, rtol=0, atol=0, equal_nan=True))
        for a, b in zip(usual, flipped))
    return "" if same else tied


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
    return ", ".join(sorted(name for name in finder.found if name))


def drawn_without_ties(model: torch.nn.Module, args: tuple, redraw: Callable[[int], tuple],
                       check: Callable[[tuple], object], failed, attempts: int = 3) -> tuple[object, tuple]:
    """(result, the inputs it is for) of a generated probe that failed (verify.ProbeResult) on
    ``args``: where an order-selecting op met equal values there and eager's outputs depend on how
    they are broken, the probe drawn again (``redraw(attempt)``, up to ``attempts`` times) until
    they no longer do, and ``check``'s result on that draw, noted. No such tie, or such ties on
    every draw: the failure stands."""
    tied = tie_sensitive(model, args)
    if not tied:
        return failed, args
    for attempt in range(1, attempts + 1):
        other = redraw(attempt)
        if not tie_sensitive(model, other):
            result = check(other)
            note = f"drawn again: the first draw tied at {tied}, whose tie order the outputs depend on"
            return replace(result, note="; ".join(filter(None, [note, result.note]))), other
    return failed, args
