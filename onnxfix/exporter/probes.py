"""Inputs the export never saw: the user's probes, and generated ones.

Generated probes re-draw values of the same dtype and range (integer tensors stay within the
range seen, each field of a short last dimension within its own, so indices stay valid) and, for
dynamic dimensions, change their sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch


@dataclass
class Probe:
    name: str
    args: tuple
    # A generated probe: other values of the same sizes, drawn with another seed (ties.py: a draw
    # on which a topk meets equal values proves nothing and is drawn again)
    redraw: Callable[[int], tuple] | None = None


SEED = 1234  # generated probes are the same on every run


def user_probes(probes) -> list[Probe]:
    return [Probe(f"probe {i + 1} (user)", tuple(p)) for i, p in enumerate(probes)]


def redraw(value, generator: torch.Generator, sizes: dict[int, int] | None = None,
           dynamic_dims: frozenset[int] | set[int] = frozenset()):
    if not isinstance(value, torch.Tensor):
        return value
    shape = list(value.shape)
    for dim, size in (sizes or {}).items():
        shape[dim] = size
    if value.dtype == torch.bool:
        return torch.rand(shape, generator=generator) > 0.5
    if value.dtype.is_floating_point:
        mean = float(value.float().mean()) if value.numel() else 0.0
        std = float(value.float().std()) if value.numel() > 1 else 1.0
        return (torch.randn(shape, generator=generator) * (std or 1.0) + mean).to(value.dtype)
    low = int(value.min()) if value.numel() else 0
    high = int(value.max()) if value.numel() else 1
    if value.dim() == 0:
        return value.clone()  # a count or a size: keep it, so that shapes stay consistent
    if low == high:  # one value throughout (an all-ones mask): the same value at the new sizes
        return torch.full(shape, low, dtype=value.dtype)
    fields = _field_ranges(value, {*(sizes or {}), *dynamic_dims}, low, high)
    if fields is not None:
        lows, highs = fields
        drawn = torch.randint(0, 2**62, shape, generator=generator)
        return (lows + drawn % (highs - lows + 1)).to(value.dtype)
    return torch.randint(low, high + 1, shape, generator=generator, dtype=value.dtype)


FIELDS = 8  # a last dimension this short holds a record's fields: a voxel's (batch, z, y, x), a box


def _field_ranges(value: torch.Tensor, dynamic_dims: set[int], low: int, high: int):
    """(lows, highs) of each field of an integer table whose fields have ranges of their own
    (VoxelNet's coordinates: the batch index, then z < depth, y < height, x < width), or None.
    Drawn in the range of the whole tensor, a field would go out of its bounds (z up to the
    width): an index out of range, which eager scatters may not even check (a crash, not a
    verdict on the export)."""
    last = value.dim() - 1  # a dynamic last dimension is a sequence (token ids), not a record's fields
    if value.dim() < 2 or not 1 < value.shape[-1] <= FIELDS or last in dynamic_dims or -1 in dynamic_dims:
        return None
    rows = value.reshape(-1, value.shape[-1]).long()
    lows, highs = rows.min(0).values, rows.max(0).values
    if bool((lows == low).all() and (highs == high).all()):
        return None  # every field spans the whole range: nothing of their own to keep
    return lows, highs


def generated_probes(args: tuple, dynamic: dict[int, dict[int, str]]) -> list[Probe]:
    generator = torch.Generator().manual_seed(SEED)
    probes = [_generated("generated (other values)", _redrawn(args, generator, {}, dynamic), dynamic)]
    if dynamic:
        for delta in (1, 3):
            drawn = _redrawn(args, generator, _resized(args, dynamic, delta), dynamic)
            probes.append(_generated(f"generated (dynamic dims +{delta})", drawn, dynamic))
    return probes


def _generated(name: str, args: tuple, dynamic: dict[int, dict[int, str]]) -> Probe:
    """A generated probe, which can be drawn again with other values of its sizes (seed SEED + attempt)."""
    return Probe(name, args, redraw=lambda attempt: _redrawn(
        args, torch.Generator().manual_seed(SEED + attempt), {}, dynamic))


def _redrawn(args: tuple, generator: torch.Generator, resized: dict[int, dict[int, int]],
             dynamic: dict[int, dict[int, str]] | None = None) -> tuple:
    """Each argument re-drawn; one tensor passed as several arguments (`attn(x, x, x)`) stays one:
    torch.export traces the aliasing, and the graph reads only one of those inputs. Its new sizes
    are those any of its positions declares dynamic."""
    sizes: dict[int, dict[int, int]] = {}
    varying: dict[int, set[int]] = {}  # the dims declared dynamic at any of the tensor's positions
    for i, a in enumerate(args):
        sizes.setdefault(id(a), {}).update(resized.get(i, {}))
        varying.setdefault(id(a), set()).update((dynamic or {}).get(i, {}))
    drawn: dict[int, object] = {}
    for a in args:
        if id(a) not in drawn:
            drawn[id(a)] = redraw(a, generator, sizes[id(a)], varying[id(a)])
    return tuple(drawn[id(a)] for a in args)


def _resized(args: tuple, dynamic: dict[int, dict[int, str]], delta: int) -> dict[int, dict[int, int]]:
    """Dims sharing a name get the same new size."""
    new_size: dict[str, int] = {}
    result: dict[int, dict[int, int]] = {}
    for index, dims in dynamic.items():
        for dim, name in dims.items():
            size = new_size.setdefault(name, args[index].shape[dim] + delta)
            result.setdefault(index, {})[dim] = size
    return result


# a guard's claim is measured on one more probe only where that probe stays small
CLAIM_MAX_SIZE = 128
CLAIM_MAX_ELEMENTS = 1 << 22


def claim_probes(claims: list[list], args: tuple, dynamic: dict[int, dict[int, str]], tried: list[tuple]) -> list[Probe]:
    """A probe at the first size each guard report says the exported model fails at ([input, dim,
    excluded sizes]), where no probe tried one of those sizes: a guard torch.export recorded need
    not be in the ONNX graph (a backend heuristic's `batch < 16`), so the claim is measured, not
    assumed. Dims sharing the dim's name take the same size; none past CLAIM_MAX_SIZE or holding
    more than CLAIM_MAX_ELEMENTS in one tensor."""
    probes = []
    for index, dim, excluded in claims:
        if index >= len(args) or not hasattr(args[index], "shape") or dim >= len(args[index].shape):
            continue
        if any(index < len(t) and hasattr(t[index], "shape") and t[index].shape[dim] in excluded for t in tried):
            continue
        larger = [size for size in excluded if args[index].shape[dim] < size <= CLAIM_MAX_SIZE]
        name = dynamic.get(index, {}).get(dim)
        if not larger or name is None:
            continue
        resized = {i: {d: larger[0] for d, n in dims.items() if n == name} for i, dims in dynamic.items()}
        drawn = _redrawn(args, torch.Generator().manual_seed(SEED), resized, dynamic)
        if all(not hasattr(a, "numel") or a.numel() <= CLAIM_MAX_ELEMENTS for a in drawn):
            probes.append(Probe(f"guard claim ({name}={larger[0]})", drawn))
    return probes
