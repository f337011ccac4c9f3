"""Export-time repair: functions memoized with `functools.lru_cache` / `functools.cache` run
uncached while exporting.

A cache keys its calls on their arguments; under torch.export a dynamic size is a SymInt, which
has no hash ("unhashable type: non-nested SymInt"): einops before 0.7 caches its recipe on
`tensor.shape` (`_reconstruct_from_shape`), so any rearrange of a tensor with a dynamic dim fails
the dynamo export. A cache returns what the function computes, so while exporting each cached
function of the loaded modules (not torch's, the exporters', NumPy's or SymPy's, whose caches the
export itself uses, nor the standard library's) is the function it wraps; afterwards the caches are
back, their contents kept. The exported model is verified against eager PyTorch as every repair's
is. Eager is untouched.
"""

from __future__ import annotations

import functools
import sys
from contextlib import contextmanager
from typing import Iterator

# packages whose caches the export relies on, or whose functions never see a model's sizes
_KEPT = frozenset({"torch", "torchgen", "functorch", "onnx", "onnxscript", "onnx_ir", "onnxruntime", "numpy",
                   "sympy", "mpmath", "onnxfix", "_pytest", "pytest", "typing_extensions", "importlib_metadata"})


def cached_functions(model) -> list[tuple[dict, str, object]]:
    """(namespace, name, cached function) of every module-level cached function the repair unwraps:
    in the loaded modules, and in the globals of the model's own forwards (a model file loaded by
    path need not be in sys.modules)."""
    namespaces = {}
    for name, module in list(sys.modules.items()):
        package = name.partition(".")[0]
        namespace = getattr(module, "__dict__", None)
        if package not in _KEPT and package not in sys.stdlib_module_names and isinstance(namespace, dict):
            namespaces[id(namespace)] = namespace
    for layer in model.modules() if hasattr(model, "modules") else ():
        namespace = getattr(type(layer).forward, "__globals__", None)
        if isinstance(namespace, dict) and namespace.get("__name__", "").partition(".")[0] not in _KEPT:
            namespaces[id(namespace)] = namespace
    return [(namespace, attribute, value) for namespace in namespaces.values() for attribute, value in list(namespace.items())
            if isinstance(value, functools._lru_cache_wrapper) and callable(getattr(value, "__wrapped__", None))]


@contextmanager
def caches_bypassed(model) -> Iterator[None]:
    """Within the block, each cached function of the loaded modules is the function it wraps."""
    restore = cached_functions(model)
    for namespace, attribute, cached in restore:
        namespace[attribute] = cached.__wrapped__
    try:
        yield
    finally:
        for namespace, attribute, cached in reversed(restore):
            namespace[attribute] = cached
