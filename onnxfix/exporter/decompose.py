"""Apply onnxfix's operator decompositions while a model is exported, without touching its source.

    from onnxfix.exporter.decompose import decomposition_context
    with decomposition_context():                 # or decomposition_context(["cumprod", "linalg_inv"])
        torch.onnx.export(model, args, "m.onnx", dynamo=True)   # or dynamo=False

The decompositions are the same text the ONX5xx source fixes write into user files
(``onnxfix/decompositions/<key>.py``), executed here.

Why a ``TorchFunctionMode``: it intercepts the *public* call (``torch.linalg.inv``,
``Tensor.cumprod``, ``F.adaptive_max_pool2d``), with the user's arguments, before any tracing
decides what the op is. That one mechanism serves both exporters, because both run the model's
Python while they trace: the legacy exporter through ``torch.jit.trace`` (it records the ops the
decomposition executes) and the dynamo exporter through ``torch.export`` (non-strict capture runs
the mode; measured on torch 2.13). The alternatives each cover one exporter only: a torch.export
decomposition table or ``custom_translation_table`` works on ATen overloads after capture
(``aten.linalg_inv_ex`` returns (inverse, info); ``cov`` fails in capture before any table is
consulted) and needs the decomposition rewritten as ONNX script, and the legacy exporter would
need ``register_custom_op_symbolic`` in its graph language. Patching ``torch.linalg.inv`` globally
would also work but leaks into other threads and misses ``Tensor`` methods bound in C.

A call the decomposition cannot take (an ``out=`` argument, ``sort`` without ``stable=True``)
runs the original op unchanged.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import torch
from torch.overrides import TorchFunctionMode

from onnxfix.decompositions import BY_KEY, DECOMPOSITIONS, Decomposition, load_function
from onnxfix.decompositions.base import literal_matches
from onnxfix.exporter.export_repairs import EXPORT_REPAIRS
from onnxfix.exporter.model_state import state_dict_standard
from onnxfix.exporter.quant_stubs import fake_quant_constants
from onnxfix.exporter.quantized_modules import quantized_as_float
from onnxfix.exporter.cached_functions import caches_bypassed
from onnxfix.exporter.compiled import compiled_unwrapped
from onnxfix.exporter.training_wrappers import checkpoint_inlined, data_parallel_unwrapped
from onnxfix.exporter.custom_ops import custom_ops_inlined
from onnxfix.exporter.complex_state import complex_state_as_pairs
from onnxfix.exporter.unregistered import attributes_as_buffers, gradients_off
from onnxfix.exporter.dead_comparisons import dead_comparisons_dropped
from onnxfix.exporter.floor_division import floor_division_floored
from onnxfix.exporter.slice_bounds import slice_bounds_int64
from onnxfix.exporter.index_keys import ellipsis_expanded
from onnxfix.exporter.bool_scalars import bool_scalars_as_ints
from onnxfix.exporter.size_tensors import size_tensors_kept
from onnxfix.exporter.number_buffers import int_buffers_as_numbers
from onnxfix.exporter.packed_sequences import packed_as_padded
from onnxfix.exporter.legacy_gaps import copy_symbolic, unflatten_traced_sizes
from onnxfix.exporter.nn_layers import causal_mask_check_off, mha_fastpath_off, rnn_while_loops


@dataclass(frozen=True)
class Entry:
    decomposition: Decomposition
    function: Callable
    signature: inspect.Signature

    def applies(self, args: tuple, kwargs: dict) -> bool:
        if self.decomposition.wraps_op:
            return True  # the helper takes any call of the op (and runs the op itself where it can)
        for name, position, value in self.decomposition.when_literals:  # the values the call passes
            given = kwargs.get(name, args[position] if position is not None and position < len(args) else None)
            if not literal_matches(value, given):
                return False
        present = self.decomposition.when_present
        if present is not None:  # by keyword or at its position (nn.EmbeddingBag passes padding_idx so)
            name, position = present
            given = kwargs.get(name, args[position] if position < len(args) else None)
            if given is None:
                return False
        try:
            self.signature.bind(*args, **kwargs)
        except TypeError:
            return False
        return True


def resolve_target(target: str):
    """'torch.linalg.inv' -> the function; 'Tensor.cumprod' -> torch.Tensor.cumprod;
    'torch.ops.ns.op' -> the custom op's packet, None when its library is not installed."""
    if target.startswith("Tensor."):
        return getattr(torch.Tensor, target[len("Tensor."):])
    if target.startswith("torch.ops."):
        _, _, namespace, name = target.split(".")
        return getattr(getattr(torch.ops, namespace), name, None) if register_libraries(target) else None
    obj, parts = torch, target.split(".")
    for depth, part in enumerate(parts[1:], 2):
        if not hasattr(obj, part):  # a submodule torch does not import itself (torch.nn.attention.flex_attention)
            importlib.import_module(".".join(parts[:depth]))
        obj = getattr(obj, part)
    return obj


def register_libraries(target: str | None = None) -> bool:
    """Import the libraries whose import registers the custom ops the decompositions target
    (those of ``target`` alone when given); False when one is not installed."""
    registered = True
    for decomposition in DECOMPOSITIONS:
        if decomposition.registered_by and (target is None or target in decomposition.targets):
            try:
                importlib.import_module(decomposition.registered_by)
            except ImportError:
                registered = False
    return registered


def available() -> list[str]:
    """Keys ``decomposition_context`` accepts, e.g. 'linalg_inv', 'cumprod'."""
    return [d.key for d in DECOMPOSITIONS if d.drop_in and d.at_export]


def decomposition_table(ops: Iterable[str] | None = None, typed: bool = False) -> dict[Callable, Entry]:
    """{torch callable: Entry} for the chosen decompositions (all when ``ops`` is None). ``ops``
    holds keys ('cumprod') or torch names ('torch.cumprod', 'Tensor.cumprod'). ``typed``: helpers
    that return another type are allowed (an export repair's, whose values carry that type)."""
    chosen = _choose(ops, typed)
    namespace: dict = {"torch": torch}
    table = {}
    for decomposition in chosen:
        function = load_function(decomposition.key, namespace)
        entry = Entry(decomposition, function, inspect.signature(function))
        if decomposition.every_op:  # its targets only document it: the op's own decomposition keeps its key
            table[EVERY_OP] = entry
            continue
        for target in decomposition.targets:
            function = resolve_target(target)
            if function is not None:  # a custom op whose library is absent is never called
                table[function] = entry
    return table


def _choose(ops: Iterable[str] | None, typed: bool = False) -> list[Decomposition]:
    if ops is None:
        return [d for d in DECOMPOSITIONS if d.drop_in and d.at_export]
    chosen = []
    for op in ops:
        decomposition = BY_KEY.get(op) or next((d for d in DECOMPOSITIONS if op in d.targets), None)
        if decomposition is None:
            raise ValueError(f"no decomposition for {op!r}; available: {', '.join(available())}")
        if not decomposition.at_export:
            raise ValueError(f"{decomposition.key!r} is a source fix only: at export time {decomposition.at_export_by!r} "
                             f"repairs the same calls")
        if not decomposition.drop_in and not typed:
            raise ValueError(f"{decomposition.key!r} changes the result's type (a source fix rewrites its "
                             f"consumers too): not available at export time")
        chosen.append(decomposition)
    return chosen


EVERY_OP = "every op"  # the table key of a repair that takes every computing call

# Calls that read or convert, not compute: an every-op repair leaves them alone (`x.dtype` of a
# bfloat16 tensor must stay bfloat16; `.to(...)`, `.float()` choose the dtype themselves).
_METADATA = frozenset({
    "size", "dim", "numel", "shape", "dtype", "device", "is_floating_point", "is_complex", "element_size",
    "to", "type", "float", "double", "half", "bfloat16", "int", "long", "bool", "type_as", "item", "tolist",
    "stride", "storage_offset", "is_contiguous", "contiguous", "data_ptr", "requires_grad_", "detach",
    "clone", "copy_", "numpy", "cpu", "cuda", "__len__", "__repr__", "__format__", "__bool__", "__int__",
    "__float__", "__index__", "__iter__", "__getitem__", "__setitem__", "get_device", "new_empty",
    "new_zeros", "new_ones", "new_full", "new_tensor", "view", "reshape", "permute", "transpose",
    "unsqueeze", "squeeze", "flatten", "unflatten", "split", "chunk", "unbind", "narrow",
})
# `expand` copies values in ONNX (Expand), which onnxruntime's CPU provider has no bfloat16
# kernel for: a computing call for the every-op repair (float32_compute casts it only for
# bfloat16, where the round trip through float32 is exact).


def _computes(func) -> bool:
    """A user-level computing call: not metadata, and not an ATen overload (torch.onnx's own
    decomposition pass runs those inside the export, on the graph already traced)."""
    if isinstance(func, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return False
    name = getattr(func, "__name__", "")
    return (name not in _METADATA and name not in ("__get__", "__set__")
            and not name.startswith(("is_", "_is_")) and "storage" not in name)


class DecompositionMode(TorchFunctionMode):
    """Runs the decomposition instead of the op for every call the table covers. Calls made by
    a decomposition itself are not intercepted (torch disables a mode inside its own handler)."""

    def __init__(self, table: dict[Callable, Entry]):
        super().__init__()
        self.table = table
        self.used: dict[str, int] = {}
        # (key, file, line) of each call decomposed: the innermost frame outside torch and
        # onnxfix, where a source fix would rewrite the call
        self.sites: set[tuple[str, str, int]] = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        entry = self.table.get(func)
        if entry is None and EVERY_OP in self.table and _computes(func):
            entry = self.table[EVERY_OP]
        if entry is not None and entry.applies(args, kwargs):
            key = entry.decomposition.key
            record = entry.decomposition
            if record.counts_call(args, kwargs):
                self.used[key] = self.used.get(key, 0) + 1
            # where a source fix would rewrite the call: the calls the helper's decomposition takes
            rewrites = record.written_from_run and (record.static or record.site_applies(args, kwargs))
            site = _caller() if rewrites else None
            if site is not None:
                self.sites.add((key, *site))
            if entry.decomposition.wraps_op:
                return entry.function(func, *args, **kwargs)
            return entry.function(*args, **kwargs)
        return func(*args, **kwargs)


# torch's package and onnxfix's (two folders up from this file) are not where a call is written
_LIBRARY_DIRS = tuple(os.path.abspath(folder) + os.sep for folder in (os.path.dirname(torch.__file__),
                                                                     os.path.dirname(os.path.dirname(__file__))))


def _caller() -> tuple[str, int] | None:
    """The innermost frame outside torch, onnxfix and the decompositions' own text."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith("<") and not os.path.abspath(path).startswith(_LIBRARY_DIRS):
            return os.path.realpath(path), frame.f_lineno
        frame = frame.f_back
    return None


@contextmanager
def decomposition_context(ops: Iterable[str] | None = None, model=None) -> Iterator[DecompositionMode]:
    """Within the block, the chosen ops (all by default) run as their decompositions, and the
    named repairs' contexts are entered for ``model``. The yielded mode's ``used`` counts the
    calls decomposed (to report what was applied)."""
    ops = None if ops is None else list(ops)
    repairs = [op for op in ops or () if op in EXPORT_REPAIRS]  # named only: never in "all"
    table = decomposition_table(None if ops is None else [op for op in ops if op not in repairs])
    for repair in repairs:
        table.update(decomposition_table(EXPORT_REPAIRS[repair].keys, typed=True))
    mode = DecompositionMode(table)
    counts = []  # what the repairs that count their use yield (rnn_while_loops)
    with ExitStack() as settings:
        for context in dict.fromkeys(c for repair in repairs for c in EXPORT_REPAIRS[repair].contexts):
            if context in TABLE_CONTEXTS:  # it needs the helpers' own namespace
                settings.enter_context(TABLE_CONTEXTS[context](model, table))
            else:
                counts.append(settings.enter_context(REPAIR_CONTEXTS[context](model)))
        try:
            with mode:
                yield mode
        finally:
            for count in counts:
                for key, calls in (count if isinstance(count, dict) else {}).items():
                    mode.used[key] = mode.used.get(key, 0) + calls


# each takes the model being exported
REPAIR_CONTEXTS = {"compiled_unwrapped": compiled_unwrapped, "mha_fastpath_off": mha_fastpath_off, "causal_mask_check_off": causal_mask_check_off, "fake_quant_constants": fake_quant_constants,
                   "gradients_off": gradients_off, "dead_comparisons_dropped": dead_comparisons_dropped,
                   "slice_bounds_int64": slice_bounds_int64, "bool_scalars_as_ints": bool_scalars_as_ints,
                   "quantized_as_float": quantized_as_float, "ellipsis_expanded": ellipsis_expanded,
                   "size_tensors_kept": size_tensors_kept, "packed_as_padded": packed_as_padded,
                   "rnn_while_loops": rnn_while_loops, "attributes_as_buffers": attributes_as_buffers,
                   "custom_ops_inlined": custom_ops_inlined, "state_dict_standard": state_dict_standard,
                   "floor_division_floored": floor_division_floored, "int_buffers_as_numbers": int_buffers_as_numbers,
                   "unflatten_traced_sizes": unflatten_traced_sizes, "copy_symbolic": copy_symbolic,
                   "data_parallel_unwrapped": data_parallel_unwrapped, "checkpoint_inlined": checkpoint_inlined,
                   "caches_bypassed": caches_bypassed}
# each takes the model being exported and the table of the helpers substituted
TABLE_CONTEXTS = {"complex_state_as_pairs": complex_state_as_pairs}
