"""The quantization grids of quantized_as_float (exporter/quantized_modules.py): rounding onto a
grid as ATen does, and, in a model converted in eager mode, which float value lies on which grid
while it is exported.

An eager-mode converted model applies plain torch functions to quantized tensors between its
quantized modules (`torch.cat` of a U-Net's skip connection, an `nn.AdaptiveAvgPool2d`, a
`nn.ReLU`), and ATen's quantized kernels compute those on the input's grid: `torch.cat`
requantizes to its first input's scale and zero point (cat_quantized_cpu), averages round their
integer levels half to even back onto the input's grid, and a quantized ReLU6 clamps on the
input's grid. Once each quantized module is replaced by its float forward, those values are
plain floats: GridTracker, a TorchFunctionMode entered while exporting, remembers the grid of
each value a simulated module returned and carries it through the ops that keep a value on its
grid, so that those ops round as the kernels do. An op on a value whose grid is unknown runs
as it is (the comparison with eager then fails the repair rather than hiding the difference).
"""

from __future__ import annotations

import operator

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

_RANGES = {torch.quint8: (0, 255), torch.qint8: (-128, 127), torch.qint32: (-(2**31), 2**31 - 1)}

Grid = tuple  # (scale, zero_point, dtype)


def on_grid(x: torch.Tensor, scale: float, zero_point: int, dtype=torch.quint8) -> torch.Tensor:
    """x rounded onto the quantization grid and read back, as ATen's quantize_per_tensor."""
    low, high = _RANGES.get(dtype, (0, 255))
    quantized = torch.clamp(torch.round(x * (1.0 / scale)) + zero_point, low, high)
    return (quantized - zero_point) * scale


def grid_levels(x: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """The integer levels (as floats) of a tensor on a quantization grid."""
    return torch.round(x * (1.0 / scale)) + zero_point


def from_levels(levels: torch.Tensor, scale: float, zero_point: int, dtype=torch.quint8) -> torch.Tensor:
    """Averaged levels rounded (half to even) back onto the grid, as the quantized pools do."""
    low, high = _RANGES.get(dtype, (0, 255))
    return (torch.clamp(torch.round(levels), low, high) - zero_point) * scale


# ops that leave a value on its grid: reshapes, row selections, maxima, ReLU (0 is a level); the
# FX rewrite matches a call_function's target and a call_method's name, the tracker the
# function, or the Tensor attribute a method reaches __torch_function__ as
ON_GRID_FUNCTIONS = {torch.flatten, torch.reshape, torch.permute, torch.transpose, torch.squeeze, torch.unsqueeze,
                     torch.relu, F.relu, operator.getitem, F.max_pool1d, F.max_pool2d, F.max_pool3d,
                     F.adaptive_max_pool1d, F.adaptive_max_pool2d, torch.chunk, torch.split}
ON_GRID_METHODS = {"flatten", "reshape", "view", "permute", "transpose", "contiguous", "squeeze", "unsqueeze",
                   "size", "dim", "relu", "detach", "chunk", "split"}
_KEEPS_GRID = {*ON_GRID_FUNCTIONS, torch.relu_,
               *(getattr(F, name) for name in ("_max_pool1d", "_max_pool2d", "_max_pool3d") if hasattr(F, name)),
               *(getattr(torch.Tensor, name) for name in (*ON_GRID_METHODS - {"size", "dim"}, "relu_", "__getitem__",
                                                          "clone"))}
# averages whose window weights sum to 1, taken of the levels and rounded back onto the grid
# (measured exact against the quantized kernels: adaptive pools, unpadded average pools,
# bilinear and nearest resizes)
AVERAGE_FUNCTIONS = {F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d, F.interpolate}
_CATS = {torch.cat, torch.concat, torch.concatenate}


def _averages(func, args, kwargs) -> bool:
    """Not a resize of another mode than nearest or (bi)linear (measured exact: those two)."""
    if func is not F.interpolate:
        return True
    mode = kwargs.get("mode", args[3] if len(args) > 3 else "nearest")
    return mode in ("nearest", "linear", "bilinear")


class GridTracker(TorchFunctionMode):
    """The grid of each value a simulated module returned (``mark``), carried through the ops
    of _KEEPS_GRID; `torch.cat` of values on known grids requantized to the first one's grid,
    averages of one taken of its levels. Values are keyed by identity, each kept alive while the
    tracker is."""

    def __init__(self):
        super().__init__()
        self._grids: dict[int, tuple[torch.Tensor, Grid]] = {}

    def grid(self, value) -> Grid | None:
        entry = self._grids.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def mark(self, value, grid: Grid | None):
        if grid is not None and isinstance(value, torch.Tensor):
            self._grids[id(value)] = (value, grid)
        elif grid is not None and isinstance(value, (tuple, list)):
            for item in value:
                self.mark(item, grid)
        return value

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _CATS:
            tensors = args[0] if args else kwargs.get("tensors", ())
            grids = [self.grid(t) for t in tensors]
            result = func(*args, **kwargs)
            if grids and all(g is not None for g in grids):
                return self.mark(on_grid(result, *grids[0]), grids[0])
            return result
        grid = self.grid(args[0]) if args else None
        if grid is None:
            return func(*args, **kwargs)
        if func in AVERAGE_FUNCTIONS and _averages(func, args, kwargs):
            scale, zero_point, dtype = grid
            levels = func(grid_levels(args[0], scale, zero_point), *args[1:], **kwargs)
            return self.mark(from_levels(levels, scale, zero_point, dtype), grid)
        if func is F.avg_pool2d or func is F.avg_pool1d or func is F.avg_pool3d:
            return self._average_pool(func, grid, args, kwargs)
        result = func(*args, **kwargs)
        return self.mark(result, grid) if func in _KEEPS_GRID else result

    def _average_pool(self, func, grid: Grid, args, kwargs):
        """An average pool without padding or a divisor override (a padded zero is level
        `zero_point`, not 0: left as it is)."""
        padding = kwargs.get("padding", args[3] if len(args) > 3 else 0)
        divisor = kwargs.get("divisor_override", args[6] if len(args) > 6 else None)  # (1-D pools have none)
        if any(torch.nn.modules.utils._ntuple(3)(padding)) or (func is not F.avg_pool1d and divisor is not None):
            return func(*args, **kwargs)
        scale, zero_point, dtype = grid
        levels = func(grid_levels(args[0], scale, zero_point), *args[1:], **kwargs)
        return self.mark(from_levels(levels, scale, zero_point, dtype), grid)
