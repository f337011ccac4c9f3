"""Export-time repair `size_tensors_kept`: a tensor built from sizes while torch.export traces
(Deformable DETR's `spatial_shapes = torch.as_tensor([(h, w) for each level])`) hands those sizes
back as the SymInts they are where the model reads it as Python numbers.

Two things go wrong without it, measured on torch 2.13 in non-strict torch.export: `torch.as_tensor`
(or `torch.tensor`) of SymInts records the export-time values as a constant, silently (the level
start offsets computed from it keep the example's sizes); and reading the tensor back
(`for H, W in spatial_shapes`, `spatial_shapes[lvl]`, `.unbind()`, `.tolist()`, `.item()`) gives
unbacked values with no tie to the sizes they were, so a later `split` / `view` by them fails on a
data-dependent guard or keeps no size. `torch._shape_as_tensor(feat)[2:]` (Mask2Former's and
RF-DETR's levels) fails outright: ATen reads the sizes from the data, which a traced tensor has
none of ("data is not allocated yet"). Within the mode the tensor is stacked from 0-d tensors of
its sizes (graph values), and the reads return the SymInts themselves; the sizes are followed
through moves and integer casts (`.to(device)`), `torch.cat(...).view(-1, 2)`, products and sums of
two such tensors item by item, and a whole `.sum()` (mmcv's `assert (shapes[:, 0] * shapes[:, 1]).sum()
== num_value`, which torch.export can then decide). An arange of Python ints
(`for i in torch.arange(self.nstack)`, a ModuleList indexed by `i`) is read back as its ints. Eager is untouched (the
mode is entered only while exporting), and nothing changes where no SymInt is given (the legacy
exporter's sizes are traced tensors)."""

from __future__ import annotations

import functools
import operator
import weakref
from contextlib import contextmanager
from typing import Iterator

import torch
from torch.overrides import TorchFunctionMode

from onnxfix.decompositions.linspace_steps import _onnx_linspace_steps
from onnxfix.rewriter.tensors import in_place_method

def _holds_symint(data) -> bool:
    if isinstance(data, torch.SymInt):
        return True
    return isinstance(data, (list, tuple)) and any(_holds_symint(d) for d in data)


def _all_ints(data) -> bool:
    if isinstance(data, (list, tuple)):
        return all(_all_ints(d) for d in data)
    return isinstance(data, (int, torch.SymInt)) and not isinstance(data, bool)


def _stacked(data, dtype, device) -> torch.Tensor:
    if isinstance(data, (list, tuple)):
        return torch.stack([_stacked(d, dtype, device) for d in data])
    return torch.scalar_tensor(data, dtype=dtype, device=device)


def _regular(data) -> bool:
    """Nested lists of equal lengths (what a tensor holds), at least one item per level."""
    if not isinstance(data, (list, tuple)):
        return True
    if not data:
        return False
    lengths = {len(d) if isinstance(d, (list, tuple)) else -1 for d in data}
    return len(lengths) == 1 and all(_regular(d) for d in data)


def _derived(func, args, kwargs, sizes):
    """The sizes a tensor computed from a tensor of sizes holds, for the few ops Deformable DETR's
    level bookkeeping uses (areas, their running sum, its slices, zeros to start it), else None."""
    rest = args[1:]
    dim = kwargs.get("dim", rest[0] if rest else None)
    rows = all(isinstance(row, (list, tuple)) for row in sizes)
    if func in (torch.Tensor.view, torch.Tensor.reshape) and not rows and not kwargs:
        return _rows(sizes, rest[0] if len(rest) == 1 and isinstance(rest[0], (tuple, list, torch.Size)) else rest)
    if len(rest) > 1:
        return None  # (`prod(1, True)`: keepdim)
    if func is torch.Tensor.prod and dim in (1, -1) and rows and set(kwargs) <= {"dim"}:
        products = []
        for row in sizes:
            product = 1
            for value in row:
                product = product * value
            products.append(product)
        return products
    if func is torch.Tensor.cumsum and dim == 0 and not rows and set(kwargs) <= {"dim"}:
        total, running = 0, []
        for value in sizes:
            total = total + value
            running.append(total)
        return running
    if func is torch.Tensor.__getitem__ and len(rest) == 1 and isinstance(rest[0], slice):
        return list(sizes[rest[0]])
    if (func is torch.Tensor.__getitem__ and len(rest) == 1 and isinstance(rest[0], tuple) and len(rest[0]) == 2
            and isinstance(rest[0][0], slice) and rest[0][0] == slice(None) and type(rest[0][1]) is int and rows):
        return [row[rest[0][1]] for row in sizes]  # spatial_shapes[:, 0]
    if func is torch.Tensor.to and _integer_move(rest, kwargs):
        return sizes  # `.to(feat.device)`, `.to(dtype=torch.long)`: the same integers
    if func is torch.Tensor.new_zeros and len(rest) == 1 and isinstance(rest[0], (tuple, list)) and len(rest[0]) == 1 \
            and isinstance(rest[0][0], int) and set(kwargs) <= {"dtype", "device"}:
        return [0] * rest[0][0]
    return None


def _integer_move(args, kwargs) -> bool:
    """`.to(...)` arguments that move a tensor or cast it to int64 or int32, nothing else (a narrower
    integer dtype wraps large sizes)."""
    if set(kwargs) - {"device", "dtype"}:
        return False
    given = [*args, *kwargs.values()]
    return all(isinstance(a, (torch.device, str)) or a in (torch.int64, torch.int32) for a in given)  # no narrowing


def _rows(sizes, shape):
    """`torch.cat(level_sizes).view(-1, 2)`: the flat sizes as rows of the given width, else None."""
    if len(shape) != 2 or type(shape[1]) is not int or shape[1] < 1 or len(sizes) % shape[1]:
        return None
    if shape[0] not in (-1, len(sizes) // shape[1]):
        return None
    width = shape[1]
    return [list(sizes[start:start + width]) for start in range(0, len(sizes), width)]


def _frozen(sizes):
    return tuple(_frozen(s) for s in sizes) if isinstance(sizes, (list, tuple)) else sizes


def _thawed(sizes):
    return [_thawed(s) for s in sizes] if isinstance(sizes, tuple) else sizes


def _writes_in_place(func) -> bool:
    name = getattr(func, "__name__", "")
    return name in ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__") or in_place_method(name)


def _along_dim0(args, kwargs) -> bool:
    """torch.stack / torch.cat of a non-empty sequence along dim 0."""
    return bool(args) and isinstance(args[0], (list, tuple)) and bool(args[0]) and kwargs.get(
        "dim", args[1] if len(args) > 1 else 0) == 0


def _extreme(largest: bool, values):
    """The max / min of sizes, symbolic (sym_max / sym_min)."""
    pick = torch.sym_max if largest else torch.sym_min
    result = values[0]
    for value in values[1:]:
        result = pick(result, value)
    return result


class _SizeTensors(TorchFunctionMode):
    def __init__(self, used: dict[str, int]):
        super().__init__()
        self._held: dict[int, tuple[weakref.ref, object]] = {}
        self.used = used  # how many size tensors it built or read back: none, and the repair changed nothing

    def _keep(self, tensor: torch.Tensor, sizes) -> torch.Tensor:
        self.used[REPAIR_KEY] = self.used.get(REPAIR_KEY, 0) + 1
        self._held[id(tensor)] = (weakref.ref(tensor), _frozen(sizes))  # the caller's list may change later
        return tensor

    def _sizes(self, value):
        held = self._held.get(id(value)) if isinstance(value, torch.Tensor) else None
        return held[1] if held is not None and held[0]() is value else None

    def _item(self, tensor: torch.Tensor, sizes, index: int):
        item = sizes[index]
        if isinstance(item, (list, tuple)):
            with torch._C.DisableTorchFunctionSubclass():
                return self._keep(tensor[index], item)
        return item

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not torch.compiler.is_exporting():  # the legacy tracer's sizes are traced tensors already
            return func(*args, **kwargs)
        if args and isinstance(args[0], torch.Tensor) and _writes_in_place(func):
            self._held.pop(id(args[0]), None)  # `p[1] = ...`, `p.add_(1)`: no longer the values it held
            return func(*args, **kwargs)
        if func is torch._shape_as_tensor and len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor):
            # Mask2Former's / RF-DETR's `torch._shape_as_tensor(feat)[2:]`: ATen reads the sizes out
            # of the tensor's data, which a traced tensor has none of ("data is not allocated yet")
            sizes = list(args[0].shape)
            if not sizes:
                return torch.zeros(0, dtype=torch.int64)  # a 0-d tensor's: no sizes
            return self._keep(_stacked(sizes, torch.int64, None), sizes)
        if func is torch.as_tensor and args and _holds_symint(args[0]) and _all_ints(args[0]) and _regular(args[0]):
            if set(kwargs) <= {"dtype", "device"} and len(args) == 1:
                dtype = kwargs.get("dtype") or torch.int64
                return self._keep(_stacked(args[0], dtype, kwargs.get("device")), args[0])
        held = [self._sizes(t) for t in args[0]] if func in (torch.stack, torch.cat) and _along_dim0(args, kwargs) else []
        if func is torch.stack and held and all(h is not None for h in held):
            return self._keep(func(*args, **kwargs), held)  # ONX205's `torch.stack([torch.tensor(h), ...])`
        if func is torch.cat and held and all(isinstance(h, tuple) and _all_ints(h) for h in held):
            # level offsets: cat((zeros(1), areas.cumsum(0)[:-1]))
            return self._keep(func(*args, **kwargs), [v for h in held for v in h])
        if func is torch.arange and args and all(type(a) is int for a in args) and len(args) <= 3 and not (
                set(kwargs) - {"device", "dtype"}) and kwargs.get("dtype") in (None, torch.int64):
            # `for i in torch.arange(self.nstack)`: its items are the ints of range(...), read back
            # (a ModuleList indexed by `i`) as those ints rather than as unbacked values
            return self._keep(func(*args, **kwargs), list(range(*args)))
        if func is torch.linspace and len(args) >= 3 and isinstance(args[2], torch.SymInt):
            # a size read back now steps a linspace (DINO's reference points over each level's
            # `H_`): torch.export would specialize it; ONX407's helper builds it from an arange
            self.used[REPAIR_KEY] = self.used.get(REPAIR_KEY, 0) + 1
            return _onnx_linspace_steps(*args, **kwargs)
        sizes = self._sizes(args[0]) if args else None
        if sizes is not None and isinstance(sizes, (list, tuple)):
            if func in (torch.Tensor.max, torch.Tensor.min) and len(args) == 1 and not kwargs and sizes and _all_ints(sizes) \
                    and not any(isinstance(v, (list, tuple)) for v in sizes):
                return _extreme(func is torch.Tensor.max, sizes)  # `torch.arange(lengths.max())`
            flat = sizes and _all_ints(sizes) and not any(isinstance(v, (list, tuple)) for v in sizes)
            if func is torch.Tensor.sum and len(args) == 1 and not kwargs and flat and _holds_symint(list(sizes)):
                # mmcv's `assert (spatial_shapes[:, 0] * spatial_shapes[:, 1]).sum() == num_value`:
                # the total as the SymInt it is, which torch.export can compare with the input's size
                return functools.reduce(operator.add, sizes)
            other = self._sizes(args[1]) if len(args) == 2 and not kwargs else None
            if func in _ELEMENTWISE and flat and other is not None and len(other) == len(sizes) and _all_ints(other):
                return self._keep(func(*args, **kwargs), [_ELEMENTWISE[func](a, b) for a, b in zip(sizes, other)])
            derived = _derived(func, args, kwargs, sizes)
            if derived is not None:
                return self._keep(func(*args, **kwargs), derived)
            tensor = args[0]
            if func is torch.Tensor.__getitem__ and type(args[1]) is int and -len(sizes) <= args[1] < len(sizes):
                return self._item(tensor, sizes, args[1])
            if func is torch.Tensor.__getitem__ and isinstance(args[1], tuple) and args[1] and all(
                    type(i) is int for i in args[1]):
                value = self._item(tensor, sizes, args[1][0])
                return value if len(args[1]) == 1 else self.__torch_function__(func, types, (value, args[1][1:]))
            if func is torch.Tensor.unbind and args[1:] in ((), (0,)) and kwargs in ({}, {"dim": 0}):
                return tuple(self._item(tensor, sizes, i) for i in range(len(sizes)))
            if func is torch.Tensor.tolist and len(args) == 1:
                return _thawed(sizes)
        return func(*args, **kwargs)


# products and sums of two tensors of sizes, item by item (the areas of levels from their rows)
_ELEMENTWISE = {torch.Tensor.__mul__: operator.mul, torch.Tensor.mul: operator.mul,
                torch.Tensor.__add__: operator.add, torch.Tensor.add: operator.add}


def _itself(self):
    return self


REPAIR_KEY = "size_tensors_kept"


@contextmanager
def size_tensors_kept(model=None) -> Iterator[dict[str, int]]:
    """Yields how many size tensors it kept or rebuilt (none: the repair changed nothing, and the
    fix loop leaves it out)."""
    used: dict[str, int] = {}
    # a read item is the SymInt itself where eager had a 0-d tensor: `.item()` of it (Mask2Former's
    # `[size.item() for size in split_sizes]`) is the SymInt too, for as long as the export runs
    item = vars(torch.SymInt).get("item")
    torch.SymInt.item = _itself
    # torch.tensor reaches no torch-function mode: of sizes, it is torch.as_tensor (a copy of
    # Python numbers either way), which the mode builds (ONX205's `torch.stack([torch.tensor(h), ...])`)
    tensor = torch.tensor

    def tensor_of_sizes(data, *args, **kwargs):
        if not args and set(kwargs) <= {"dtype", "device"} and _holds_symint(data):
            used[REPAIR_KEY] = used.get(REPAIR_KEY, 0) + 1
            return torch.as_tensor(data, **kwargs)
        return tensor(data, *args, **kwargs)

    torch.tensor = tensor_of_sizes
    try:
        with _SizeTensors(used):
            yield used
    finally:
        torch.tensor = tensor
        if item is None:
            del torch.SymInt.item
        else:
            torch.SymInt.item = item
