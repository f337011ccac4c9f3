"""Export-time repair `custom_ops_inlined`: a `torch.library` operator exported through its own
Python implementation.

A library registers an operator (`torch.library.custom_op("flash_attn::_flash_attn_forward")`,
`Library("xformers", "DEF").define(...)` then `.impl(..., fn, "CompositeExplicitAutograd")`) and
calls it as `torch.ops.ns.name(...)`. Neither exporter can translate it: the dynamo exporter has no
ONNX function for the overload ("No ONNX function found for <OpOverload(op='xformers...')>") or,
without a fake kernel, cannot even capture it ("tensor's device must be `meta`"); the legacy
exporter meets an "unrecognized namespace" or an int output it cannot type. Where the operator has
a kernel written in Python for every device (CompositeExplicitAutograd) or for the CPU, that kernel
is ordinary torch code: while exporting, the call runs that kernel directly, so both exporters trace
the ATen operations it is made of. A kernel in C++ or CUDA only (the real flash-attn) runs on the
exporters' fake tensors and fails, and the fix loop drops the repair (never worse).

Eager PyTorch never sees this (export time only); the exported model is compared with eager, which
calls the operator itself, on other inputs.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import torch
from torch.overrides import TorchFunctionMode

from onnxfix.exporter.export_repairs import DECOMPOSED_CUSTOM_OPS

# torch's own namespaces: operators the exporters translate or decompose themselves
TORCH_NAMESPACES = frozenset({
    "aten", "prims", "prim", "higher_order", "_c10d_functional", "c10d", "c10d_functional", "_dtensor",
    "quantized", "quantized_decomposed", "onnx", "profiler", "inductor", "_quantized", "rngprims", "debugprims",
    "fbgemm", "mkldnn", "xnnpack", "_caffe2", "torchvision",
})
KERNEL_KEYS = (torch._C.DispatchKey.CompositeExplicitAutograd, torch._C.DispatchKey.CPU)


def _overload(func) -> torch._ops.OpOverload | None:
    if isinstance(func, torch._ops.OpOverloadPacket):
        names = func.overloads()
        return getattr(func, "default") if "default" in names else (getattr(func, names[0]) if len(names) == 1 else None)
    return func if isinstance(func, torch._ops.OpOverload) else None


def python_kernel_key(op: torch._ops.OpOverload) -> torch._C.DispatchKey | None:
    """The dispatch key of the operator's own kernel to run while exporting, for an operator of a
    library outside torch; None for torch's, for one onnxfix decomposes (that decomposition is the
    repair: transformers' grouped_mm_fallback), and for one with no such kernel."""
    if op.namespace in TORCH_NAMESPACES or f"{op.namespace}.{op._opname}" in DECOMPOSED_CUSTOM_OPS:
        return None
    for key in KERNEL_KEYS:
        try:
            if torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), key):
                return key
        except RuntimeError:  # not a dispatcher operator (a TorchScript-only one)
            return None
    return None


class _InlinedCustomOps(TorchFunctionMode):
    def __init__(self, used: dict[str, int]):
        super().__init__()
        self.used = used

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        op = _overload(func)
        key = python_kernel_key(op) if op is not None else None
        if key is None:
            return func(*args, **kwargs)
        self.used[REPAIR_KEY] = self.used.get(REPAIR_KEY, 0) + 1
        return op._op_dk(key, *args, **kwargs)  # the kernel itself: its torch calls are traced


REPAIR_KEY = "custom_ops_inlined"


@contextmanager
def custom_ops_inlined(model=None) -> Iterator[dict[str, int]]:
    """Within the block, calls of library operators with a Python (composite or CPU) kernel run
    that kernel; yields how many calls it took (none: the repair changed nothing)."""
    used: dict[str, int] = {}
    with _InlinedCustomOps(used):
        yield used
