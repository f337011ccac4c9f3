"""Complex tensors carried as (real, imaginary) pairs while a model is exported.

ONNX has no complex tensors, and the dynamo exporter translates only a few complex ops: a complex
RoPE (Llama 4's `torch.polar` frequencies, `torch.view_as_complex` of the (even, odd) query
pairs, a complex product, `torch.view_as_real`) stops at the first op without a complex variant
("No decompositions registered for the complex-valued input"). Under ``ComplexPairMode`` the
ops that make a complex tensor return a ``ComplexPair`` instead, a plain object holding two real
tensors; it passes through the model's Python (indexing, `.to()`, reshapes apply to both parts),
complex arithmetic is written out on the parts, and `torch.view_as_real` stacks them again. Both
exporters then trace real ops only.

Export-time only, and only when named (`--decompose-ops complex_pairs`, or when a run fails on a
complex value): eager PyTorch keeps its complex kernels. Written out, `(a + bi)(c + di)` may round
differently from ATen's complex multiply (onnxruntime is compared with eager within tolerance).
An op of a complex value the pair does not implement raises, naming the op.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

# Ops applied to both parts alike: indexing, layout, device and copies.
STRUCTURAL = (
    "__getitem__", "to", "reshape", "view", "unsqueeze", "squeeze", "transpose", "permute", "expand",
    "expand_as", "contiguous", "clone", "flatten", "unflatten", "repeat", "narrow", "detach", "float",
    "double", "cpu", "movedim",
)


class ComplexPair:
    """A complex tensor as its real and imaginary parts (real tensors of the same shape)."""

    def __init__(self, real: torch.Tensor, imag: torch.Tensor):
        self.real, self.imag = real, imag

    def _apply(self, name: str, *args, **kwargs) -> ComplexPair:
        return ComplexPair(getattr(self.real, name)(*args, **kwargs), getattr(self.imag, name)(*args, **kwargs))

    @property
    def shape(self):
        return self.real.shape

    @property
    def device(self):
        return self.real.device

    @property
    def ndim(self):
        return self.real.ndim

    def dim(self) -> int:
        return self.real.dim()

    def size(self, *args):
        return self.real.size(*args)

    def __mul__(self, other):
        c, d = _parts(other)
        if d is None:
            return ComplexPair(self.real * c, self.imag * c)
        return ComplexPair(self.real * c - self.imag * d, self.real * d + self.imag * c)

    __rmul__ = __mul__

    def __add__(self, other):
        c, d = _parts(other)
        return ComplexPair(self.real + c, self.imag if d is None else self.imag + d)

    __radd__ = __add__

    def __sub__(self, other):
        c, d = _parts(other)
        return ComplexPair(self.real - c, self.imag if d is None else self.imag - d)

    def __rsub__(self, other):
        return (-self).__add__(other)

    def __neg__(self):
        return ComplexPair(-self.real, -self.imag)

    def conj(self) -> ComplexPair:
        return ComplexPair(self.real, -self.imag)

    def abs(self) -> torch.Tensor:
        return torch.sqrt(self.real * self.real + self.imag * self.imag)

    def angle(self) -> torch.Tensor:
        return torch.atan2(self.imag, self.real)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # torch's argument parser lets an object with __torch_function__ stand where a Tensor goes
        return complex_call(func, args, kwargs or {})


def _structural(name: str):
    def method(self, *args, **kwargs):
        return self._apply(name, *args, **kwargs)

    method.__name__ = name
    return method


for _name in STRUCTURAL:
    setattr(ComplexPair, _name, _structural(_name))


def _parts(value):
    """(real, imag) of a pair; (value, None) of a real tensor or a number."""
    if isinstance(value, ComplexPair):
        return value.real, value.imag
    return value, None


# torch functions of complex values, by what they compute on the pair
def _polar(magnitude, angle):
    return ComplexPair(magnitude * torch.cos(angle), magnitude * torch.sin(angle))


def _view_as_complex(x):
    return ComplexPair(x[..., 0], x[..., 1])


def _view_as_real(x):
    return torch.stack((x.real, x.imag), -1) if isinstance(x, ComplexPair) else torch.view_as_real(x)


MAKERS = {torch.polar: _polar, torch.view_as_complex: _view_as_complex, torch.complex: ComplexPair,
          torch.view_as_real: _view_as_real}
ARITHMETIC = {
    "mul": ComplexPair.__mul__, "__mul__": ComplexPair.__mul__, "__rmul__": ComplexPair.__mul__,
    "add": ComplexPair.__add__, "__add__": ComplexPair.__add__, "__radd__": ComplexPair.__add__,
    "sub": ComplexPair.__sub__, "__sub__": ComplexPair.__sub__, "__rsub__": ComplexPair.__rsub__,
    "real": lambda x: x.real, "imag": lambda x: x.imag, "abs": ComplexPair.abs, "angle": ComplexPair.angle,
    "conj": ComplexPair.conj,
}


def complex_call(func, args: tuple, kwargs: dict):
    """``func(*args, **kwargs)`` with complex values as pairs."""
    if func in MAKERS:
        return MAKERS[func](*args, **kwargs)
    pairs = [a for a in args if isinstance(a, ComplexPair)]
    if not pairs:
        return func(*args, **kwargs)
    name = getattr(func, "__name__", "")
    if name not in ARITHMETIC or kwargs:
        raise TypeError(f"{name or func} of a complex tensor: not supported while complex tensors are carried "
                        "as (real, imaginary) pairs (onnxfix complex_pairs)")
    # binary ops: the pair first (a product and a sum commute; `x - pair` is pair.__rsub__(x))
    if len(args) == 2 and not isinstance(args[0], ComplexPair):
        return ARITHMETIC["__rsub__" if name in ("sub", "__sub__", "__rsub__") else name](args[1], args[0])
    return ARITHMETIC[name](*args)


class ComplexPairMode(TorchFunctionMode):
    """Within the mode, complex tensors made by torch.polar / view_as_complex / complex are pairs."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return complex_call(func, args, kwargs or {})
