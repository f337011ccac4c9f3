"""Export-time repair: a module's 0-d int64 buffers read as the Python ints they hold.

DDSP-SVC's vocoder registers its sizes as buffers (`self.register_buffer("win_length",
torch.tensor(256))`) and passes them where torch wants an int (`torch.stft(n_fft=self.win_length)`,
`torch.arange(self.block_size)`). torch.export lifts every buffer into a graph input, so reading one
as an int is a value out of the data ("Could not extract specialized integer from data-dependent
expression u1"), while the legacy tracer records the int as a constant anyway. In the ONNX model a
buffer is an initializer, a constant: the int it holds is what every run reads. So while exporting
each such buffer is that int (a subclass that forwards the buffer's public attributes: `.to`,
`.device`, `.item()`), and afterwards each replaced buffer is back in its module, in its place.

Only int64 buffers: arithmetic of a tensor with the int gives what it gives with the 0-d int64
buffer (both are dimensionless operands in type promotion, and Python's unbounded int agrees with
int64 for the sizes such a buffer holds), except where the other operand is a 0-d tensor too
(`buf + torch.tensor(1, dtype=torch.int32)`: int32 with the int, int64 with the buffer) and where the
number meets only other numbers (`buf / 2` is a Python float, not a float32 tensor). The exported
model is verified against eager PyTorch as every repair's is; a call that needs a tensor
(`torch.stack([buf, ...])`) fails the export, and the loop does not keep the repair. Eager is
untouched. Tried where a dynamo export failed on a data-dependent value and the model holds such a
buffer (repair_candidates.py), not on the error alone.
"""

from __future__ import annotations

import operator
from contextlib import contextmanager
from typing import Iterator

import torch

from onnxfix.exporter.export_repairs import BUFFERS_KEY
# batch norm's counter: read only while training, never a size
_SKIPPED = frozenset({"num_batches_tracked"})


class _BufferInt(int):
    """The int a 0-d integer buffer holds, with the buffer's public tensor attributes."""

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


def size_buffers(model) -> list[str]:
    """`Class.name` of each buffer the repair reads as an int: 0-d int64, registered on a Python
    module (a TorchScript module's buffers are its compiled code's), not hidden by an instance
    attribute of the same name."""
    modules = model.modules() if isinstance(model, torch.nn.Module) else ()
    return [f"{type(m).__name__}.{name}" for m in modules for name, _ in _replaceable(m)]


def _replaceable(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    if isinstance(module, torch.jit.ScriptModule):
        return []
    return [(name, value) for name, value in module._buffers.items()
            if value is not None and name not in _SKIPPED and name not in vars(module)
            and value.dim() == 0 and value.dtype == torch.int64]


@contextmanager
def int_buffers_as_numbers(model=None) -> Iterator[dict[str, int]]:
    """Yields how many buffers it replaced (none: the fix loop leaves the repair out)."""
    used: dict[str, int] = {}
    replaced: list[tuple[torch.nn.Module, list[str], str, torch.Tensor]] = []
    try:
        for module in list(model.modules()) if model is not None else []:
            for name, buffer in _replaceable(module):
                order = list(module._buffers)
                del module._buffers[name]
                replaced.append((module, order, name, buffer))
                object.__setattr__(module, name, _BufferInt(buffer))
                used[BUFFERS_KEY] = used.get(BUFFERS_KEY, 0) + 1
        yield used
    finally:
        for module, order, name, buffer in reversed(replaced):
            vars(module).pop(name, None)  # the int set above, or one forward assigned
            module._buffers[name] = buffer
            for later in order[order.index(name) + 1:]:  # its place again (state_dict's key order)
                if later in module._buffers:
                    module._buffers[later] = module._buffers.pop(later)
