"""Export-time repairs of two places where the legacy (TorchScript) exporter stops on a value it
traced correctly (export_repairs.py names them by the failure; decompose.py enters them while
exporting). Eager PyTorch is untouched: each is undone when the export ends.

- `nn.Unflatten` built in forward from a traced shape (MiDaS / DPT: `nn.Unflatten(2,
  torch.Size([h // 16, w // 16]))`): its constructor requires Python ints, and the legacy tracer
  hands sizes over as 0-d tensors ("unflattened_size must be tuple of ints, but found element of
  type Tensor"). The layer's forward, `Tensor.unflatten`, takes them and traces the sizes.
- A whole tensor overwritten in place (`torch.empty_like(w, dtype=d).copy_(w)`, ComfyUI's
  manual-cast weights): the exporter's in-place pass turns it into `aten::copy`, which has no
  symbolic ("Exporting the operator 'aten::copy' to ONNX opset version 20 is not supported").
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch

UNFLATTEN_KEY = "unflatten_traced_sizes"
COPY_KEY = "copy_symbolic"


@contextmanager
def unflatten_traced_sizes(model=None) -> Iterator[dict[str, int]]:
    """nn.Unflatten's constructor also takes sizes that are 0-d integer tensors (what the legacy
    tracer makes of `x.shape[i]`) and SymInts; everything else it checks as before. Yields the count
    of layers built with such sizes (none: the repair changed nothing)."""
    used: dict[str, int] = {}
    check = torch.nn.Unflatten._require_tuple_int

    def require_sizes(layer, sizes) -> None:
        if isinstance(sizes, (tuple, list)) and any(_traced_size(s) for s in sizes):
            check(layer, [1 if _traced_size(s) else s for s in sizes])  # the rest as before
            used[UNFLATTEN_KEY] = used.get(UNFLATTEN_KEY, 0) + 1
            return
        check(layer, sizes)

    torch.nn.Unflatten._require_tuple_int = require_sizes
    try:
        yield used
    finally:
        torch.nn.Unflatten._require_tuple_int = check


def _traced_size(value) -> bool:
    if isinstance(value, torch.SymInt):
        return True
    return (isinstance(value, torch.Tensor) and value.dim() == 0
            and not value.dtype.is_floating_point and not value.dtype.is_complex and value.dtype != torch.bool)


@contextmanager
def copy_symbolic(model=None) -> Iterator[dict[str, int]]:
    """A legacy symbolic for `aten::copy(self, src, non_blocking)`, what a whole-tensor `copy_`
    becomes: src cast to self's dtype and broadcast to self's shape (ONNX Cast and Expand), the
    values ATen's copy_ writes. Registered for this export only, and not beside a symbolic the user
    registered for it at any opset. Yields the count of copies it translated."""
    from torch.onnx._internal.torchscript_exporter import _type_utils, registration

    used: dict[str, int] = {}
    opset = 9  # the first opset it serves; later ones fall back to it
    if any(registration.registry.is_registered_op("aten::copy", v) for v in range(7, 30)):  # the user's, any opset
        yield used
        return

    def copy(g, self, src, non_blocking):
        used[COPY_KEY] = used.get(COPY_KEY, 0) + 1
        dtype = _type_utils.JitScalarType.from_value(self, _type_utils.JitScalarType.UNDEFINED)
        if dtype != _type_utils.JitScalarType.UNDEFINED:
            src = g.op("Cast", src, to_i=dtype.onnx_type())
        return g.op("Expand", src, g.op("Shape", self))

    torch.onnx.register_custom_op_symbolic("aten::copy", copy, opset)
    try:
        yield used
    finally:
        torch.onnx.unregister_custom_op_symbolic("aten::copy", opset)
