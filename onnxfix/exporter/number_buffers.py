"""Export-time repair: a module's 0-d integer buffers read as the Python ints they hold.

DDSP-SVC's vocoder registers its sizes as buffers (`self.register_buffer("win_length",
torch.tensor(256))`) and passes them where torch wants an int (`torch.stft(n_fft=self.win_length)`,
`torch.arange(self.block_size)`). torch.export lifts every buffer into a graph input, so reading one
as an int is a value out of the data ("Could not extract specialized integer from data-dependent
expression u1"), while the legacy tracer records the int as a constant anyway. In the ONNX model a
buffer is an initializer, a constant: the int it holds is what every run reads. So while exporting
each such buffer is that int (a subclass that forwards tensor attributes to the buffer itself: `.to`,
`.device`, `.item()`), and afterwards every module's buffers are as they were.

Arithmetic with the int instead of the 0-d tensor gives the same dtype (both are dimensionless
operands in type promotion) and the same values for the integers a size buffer holds; the
exported model is verified against eager PyTorch as every repair's is. Eager is untouched.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from typing import Iterator

import torch

REPAIR_KEY = "int_buffers_as_numbers"
# batch norm's counter: read only while training, never a size
_SKIPPED = frozenset({"num_batches_tracked"})


class _BufferInt(int):
    """The int a 0-d integer buffer holds, with the buffer's tensor attributes and methods."""

    def __new__(cls, buffer: torch.Tensor):
        number = super().__new__(cls, int(buffer))
        number._buffer = buffer
        return number

    def __getattr__(self, name: str):
        # public attributes only: torch asks every argument for `__torch_function__`, and the
        # buffer's would make this int an overriding type that no tensor operation takes
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._buffer, name)


def _as_plain_int(name: str, reflected: bool):
    """Arithmetic as a plain int's: int's own methods return NotImplemented for a SymInt operand,
    and a SymInt's reflected ones do not take an int subclass."""
    function = getattr(operator, name)
    if reflected:
        return lambda self, other: function(other, int(self))
    return lambda self, other: function(int(self), other)


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or", "xor"):
    _function = f"{_name}_" if _name in ("and", "or") else _name
    setattr(_BufferInt, f"__{_name}__", _as_plain_int(_function, reflected=False))
    setattr(_BufferInt, f"__r{_name}__", _as_plain_int(_function, reflected=True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(_BufferInt, f"__{_name}__", _as_plain_int(_name, reflected=False))
_BufferInt.__hash__ = int.__hash__


def _size_buffers(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    return [(name, value) for name, value in module._buffers.items()
            if value is not None and name not in _SKIPPED and value.dim() == 0
            and not value.is_floating_point() and not value.is_complex() and value.dtype != torch.bool]


@contextmanager
def int_buffers_as_numbers(model=None) -> Iterator[dict[str, int]]:
    """Yields how many buffers it replaced (none: the fix loop leaves the repair out)."""
    used: dict[str, int] = {}
    modules = list(model.modules()) if model is not None else []
    saved = [(m, dict(m._buffers), {n: vars(m)[n] for n in vars(m) if n in m._buffers}) for m in modules]
    try:
        for module in modules:
            for name, buffer in _size_buffers(module):
                del module._buffers[name]
                object.__setattr__(module, name, _BufferInt(buffer))
                used[REPAIR_KEY] = used.get(REPAIR_KEY, 0) + 1
        yield used
    finally:
        for module, buffers, shadowed in saved:
            for name in buffers:
                if name not in shadowed:
                    vars(module).pop(name, None)  # the int set above, or one forward assigned
            module._buffers.clear()
            module._buffers.update(buffers)  # their order too (state_dict's keys)
