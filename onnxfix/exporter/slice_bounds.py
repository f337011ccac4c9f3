"""Export-time repair: the legacy exporter's Slice with a bound of another integer type.

A slice bound read out of an int32 tensor (`x[i, :, :seq_len[i]]` after `seq_len.to(torch.int)`:
Jasper's frame counts, a stop-token step) reaches the legacy exporter's `_slice` as a graph value
of that type, and it builds the ONNX Slice from it and int64 constants for the other bounds:
onnxruntime refuses the model ("Type parameter (Tind) of Optype (Slice) bound to different types
(tensor(int64) and tensor(int32))"). The repair casts every bound that is a graph value of another
integer type to int64 before the Slice: the same values, in the type the other bounds have.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


@contextmanager
def slice_bounds_int64(model) -> Iterator[None]:
    """Within the block, the legacy exporter's Slice casts its non-int64 bounds to int64;
    ``model`` is unused: the repair is the same for any model."""
    from torch.onnx._internal.torchscript_exporter import symbolic_opset10

    original = symbolic_opset10._slice

    def _slice(g, input, axes, starts, ends, steps=None):
        return original(g, input, axes, *(_as_int64(g, bound) for bound in (starts, ends)),
                        steps if steps is None else _as_int64(g, steps))

    symbolic_opset10._slice = _slice
    try:
        yield
    finally:
        symbolic_opset10._slice = original


def _as_int64(g, bound):
    """``bound`` cast to int64 when it is a graph value of another integer type; as it is otherwise
    (a list, a constant, an int64 or untyped value)."""
    import torch
    from torch.onnx._internal.torchscript_exporter import _type_utils

    if (not isinstance(bound, torch._C.Value) or bound.node().kind() == "prim::Constant"
            or not isinstance(bound.type(), torch._C.TensorType)):  # an int of scripted code: no dtype to ask
        return bound
    scalar = _type_utils.JitScalarType.from_value(bound, _type_utils.JitScalarType.UNDEFINED)
    if scalar in (_type_utils.JitScalarType.INT, _type_utils.JitScalarType.INT16,
                  _type_utils.JitScalarType.INT8, _type_utils.JitScalarType.UINT8):
        return g.op("Cast", bound, to_i=_type_utils.JitScalarType.INT64.onnx_type())
    return bound
