"""Inputs the export never saw: the user's probes, and generated ones.

Generated probes re-draw values of the same dtype and range (integer tensors stay within the
range seen, so indices stay valid) and, for dynamic dimensions, change their sizes.
"""

from __future__ import annotations

import torch

from onnxfix.exporter.verify import Probe


SEED = 1234  # generated probes are the same on every run


def user_probes(probes) -> list[Probe]:
    return [Probe(f"probe {i + 1} (user)", tuple(p)) for i, p in enumerate(probes)]


def redraw(value, generator: torch.Generator, sizes: dict[int, int] | None = None):
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
    return torch.randint(low, high + 1, shape, generator=generator, dtype=value.dtype)


def generated_probes(args: tuple, dynamic: dict[int, dict[int, str]]) -> list[Probe]:
    generator = torch.Generator().manual_seed(SEED)
    probes = [_generated("generated (other values)", _redrawn(args, generator, {}))]
    if dynamic:
        for delta in (1, 3):
            probes.append(_generated(f"generated (dynamic dims +{delta})", _redrawn(args, generator, _resized(args, dynamic, delta))))
    return probes


def _generated(name: str, args: tuple) -> Probe:
    """A generated probe, which can be drawn again with other values of its sizes (seed SEED + attempt)."""
    return Probe(name, args, redraw=lambda attempt: _redrawn(args, torch.Generator().manual_seed(SEED + attempt), {}))


def _redrawn(args: tuple, generator: torch.Generator, resized: dict[int, dict[int, int]]) -> tuple:
    """Each argument re-drawn; one tensor passed as several arguments (`attn(x, x, x)`) stays one:
    torch.export traces the aliasing, and the graph reads only one of those inputs. Its new sizes
    are those any of its positions declares dynamic."""
    sizes: dict[int, dict[int, int]] = {}
    for i, a in enumerate(args):
        sizes.setdefault(id(a), {}).update(resized.get(i, {}))
    drawn: dict[int, object] = {}
    for a in args:
        if id(a) not in drawn:
            drawn[id(a)] = redraw(a, generator, sizes[id(a)])
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
