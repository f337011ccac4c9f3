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


class _TieOrder(TorchFunctionMode):
    """torch.topk and unstable sorts with ties broken one fixed way: a stable sort of the input
    (equal values in ascending index order) or, ``reverse``, of the input flipped along the dim
    (descending). Calls inside the handler are not intercepted again. ``tied``: the ops whose
    indices differ between the two orders (their inputs tie)."""

    def __init__(self, reverse: bool):
        super().__init__()
        self.reverse = reverse
        self.tied: set[str] = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func not in _TOPK and (func not in _SORT or kwargs.get("stable")):
            return func(*args, **kwargs)  # a stable sort defines the order of equal values
        try:
            ordered = [_ordered(func, reverse, *args, **kwargs) for reverse in (False, True)]
        except Exception:  # noqa: BLE001 - an unusual call: keep the op's own answer
            return func(*args, **kwargs)
        if not torch.equal(_indices(ordered[0]), _indices(ordered[1])):
            self.tied.add("torch.topk" if func in _TOPK else "torch.sort")
        return ordered[self.reverse]


def _indices(result) -> torch.Tensor:
    return result if isinstance(result, torch.Tensor) else result.indices


def _ordered(func, reverse: bool, values, *args, **kwargs):
    """``func(values, ...)`` with equal values in ascending (``reverse``: descending) index order."""
    if func in _TOPK:
        bound = dict(zip(("k", "dim", "largest", "sorted"), args), **kwargs)
        dim, descending = bound.get("dim", -1) % values.dim(), bound.get("largest", True)
    else:
        bound = dict(zip(("dim", "descending"), args), **kwargs)
        dim, descending = bound.get("dim", -1) % values.dim(), bound.get("descending", False)
    found = torch.sort(values.flip(dim) if reverse else values, dim=dim, descending=descending, stable=True)
    sorted_values, indices = found.values, (values.shape[dim] - 1 - found.indices if reverse else found.indices)
    if func in _TOPK:
        k = bound["k"]
        return torch.return_types.topk((sorted_values.narrow(dim, 0, k), indices.narrow(dim, 0, k)))
    if func in (torch.argsort, torch.Tensor.argsort):
        return indices
    return torch.return_types.sort((sorted_values, indices))


def _tensors(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _outputs(model: torch.nn.Module, args: tuple, mode: TorchFunctionMode) -> list[torch.Tensor]:
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad(), mode:
        return _tensors(model(*cloned))


def tie_sensitive(model: torch.nn.Module, args: tuple) -> str:
    """The order-selecting ops ("torch.topk") that meet equal values on ``args``, when eager's
    outputs change with their ties broken the other way; "" when none does, or the outputs do not
    depend on how the ties are broken (only `.values` read): eager run with each op's ties in
    ascending, then descending index order."""
    reverse = _TieOrder(reverse=True)
    try:
        usual, other = _outputs(model, args, _TieOrder(reverse=False)), _outputs(model, args, reverse)
    except Exception:  # noqa: BLE001 - no proof the ties matter: the failure stands
        return ""
    same = len(usual) == len(other) and all(
        a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b) or a.is_floating_point()
                                                           and torch.allclose(a, b, rtol=0, atol=0, equal_nan=True))
        for a, b in zip(usual, other))
    return "" if same else ", ".join(sorted(reverse.tied))


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
