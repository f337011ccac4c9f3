"""What the exporters see of a model's inputs and outputs: the tensors of an output, in the order
eager is compared with onnxruntime, and the names of the inputs.

`FlatOutputs` is the repair for outputs the exporters cannot take (export_repairs.py
"flat_outputs"): a dict with non-string keys (Monodepth2's `outputs[("disp", i)]`), a dataclass,
a ModelOutput, an object of the model's own class (detectron2's `Instances`), Python numbers beside the tensors, or a complex result carried as ONX526's
(real, imaginary) pair while tracing. The legacy tracer fails on them ("output 1
(3 ...) of traced region did not have observable data dependence": the int in a key became an
output; "Only tuples, lists and Variables are supported as JIT inputs/outputs"), torch.export on
a type pytree does not know. The wrapper returns the output's tensors in `flatten`'s order, the
order eager is read in, so onnxruntime is still compared output by output; the ONNX model has
one output per tensor, not the dict or dataclass.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import inspect
import os
import textwrap
from typing import Any

import torch

from onnxfix.exporter.export_repairs import DEFAULTS_KEY, FLAT_KEY, WRAPPED_KEY  # noqa: F401  (re-exported for verify.py)


def flatten(value: Any) -> list[torch.Tensor]:
    return [leaf for leaf in leaves(value) if isinstance(leaf, torch.Tensor)]


def leaves(value: Any, objects: frozenset[int] = frozenset()) -> list[Any]:
    """Every value inside dataclasses (a model's output class), lists, tuples, dicts and the
    attributes of other plain objects (detectron2's `Instances`, whose fields sit in a dict), in
    order: tensors, numbers, None. ``objects``: the plain objects being walked (one met again, a
    back-pointer, is a leaf), at most MAX_OBJECTS deep."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [leaf for field in dataclasses.fields(value) for leaf in leaves(getattr(value, field.name), objects)]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in leaves(item, objects)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item, objects)]
    if type(value).__name__ == "_OnnxComplexPair" and isinstance(getattr(value, "real", None), torch.Tensor):
        # a complex output the legacy trace carries as ONX526's pair: as torch.onnx's dynamo exporter
        # gives a complex output, (real, imaginary) in a trailing dim of 2 (comparison.py reads so)
        return [torch.stack((value.real, value.imag), -1)]
    if _plain_object(value) and id(value) not in objects and len(objects) < MAX_OBJECTS:
        return [leaf for item in vars(value).values() for leaf in leaves(item, objects | {id(value)})]
    return [value]


MAX_OBJECTS = 4  # plain objects inside plain objects: an output structure is shallow, an object graph is not


def _plain_object(value: Any) -> bool:
    """An instance of a user class holding its data in attributes: not a tensor, a module, a class,
    a function, an enum member, a builtin value (numbers, strings, None keep being leaves), nor
    torch's or NumPy's own objects (a SymInt while torch.export traces holds its graph node in
    attributes)."""
    if isinstance(value, (torch.Tensor, torch.nn.Module, type, enum.Enum)) or callable(value):
        return False
    package = type(value).__module__.split(".")[0]
    return package not in ("builtins", "torch", "numpy") and isinstance(getattr(value, "__dict__", None), dict)


def exporter_args(args: tuple) -> tuple:
    """The arguments as torch.onnx.export reads them: both exporters take a dict at the end of
    ``args`` for keyword arguments (torch/onnx/_internal/exporter/_compat.py
    `_get_torch_export_args`, the legacy `_decide_input_format`), so a model whose last positional
    input is a dict (a Dict observation, a batch dict) fails with "missing a required argument".
    An empty dict after it is the documented way to pass it positionally."""
    return (*args, {}) if args and isinstance(args[-1], dict) else args


def input_names(model: torch.nn.Module, count: int) -> list[str]:
    declared = getattr(model, "onnxfix_input_names", None)  # kv_cache.DecoderWithPast's
    if declared and len(declared) == count:
        return list(declared)
    params = list(inspect.signature(model.forward).parameters)
    return params[:count] if len(params) >= count else [f"input_{i}" for i in range(count)]


def int_defaults(model, given: int) -> tuple[torch.Tensor, ...]:
    """forward's int and bool defaults after the ``given`` positional arguments, as the 0-d
    tensors the legacy exporter feeds them as (it appends every default to the arguments), up to
    the first default of another kind (a None, a float: their inputs, if any, stay unfed)."""
    found = []
    for param in _positional_after(model, given, every=True):
        if param is None or type(param.default) not in (int, bool):
            break
        found.append(torch.tensor(param.default))
    return tuple(found)


def _positional_after(model, given: int, every: bool = False) -> list:
    """forward's parameters after the ``given`` arguments that a position can bind, or (``every``)
    all of them with None in place of the others; [] when forward has no readable signature."""
    try:
        params = list(inspect.signature(model.forward).parameters.values())[given:]
    except (TypeError, ValueError):
        return []
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p if p.kind in positional else None for p in params] if every else [p for p in params if p.kind in positional]


def appended_defaults(model, given: int) -> list[str]:
    """forward's positional parameters after the ``given`` arguments whose default is a Python
    number, bool, list or tuple: the legacy exporter appends every default to the arguments and
    traces them as inputs (an int becomes a 0-d tensor, a list of ints a list of tensors)."""
    return [p.name for p in _positional_after(model, given) if isinstance(p.default, (int, float, list, tuple))]


def tensor_leaves(model: torch.nn.Module, args: tuple) -> list[bool]:
    """Which leaves of the model's eager output on ``args`` are tensors (FlatOutputs keeps only those)."""
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad():
        return [isinstance(leaf, torch.Tensor) for leaf in leaves(model(*cloned))]


def wrapped_forward(model) -> str:
    """The function a `functools.partial` set as the model's forward wraps, where that partial binds
    arguments its `__wrapped__` signature still lists (diffusers' HookRegistry: `update_wrapper(
    partial(new_forward, module), new_forward)`, signature `(module, *args, **kwargs)`): torch.export
    binds the example against that signature. "" otherwise."""
    forward = vars(model).get("forward") if isinstance(model, torch.nn.Module) else None
    if not isinstance(forward, functools.partial) or not forward.args or getattr(forward, "__wrapped__", None) is None:
        return ""
    return getattr(forward.func, "__qualname__", "") or repr(forward.func)


class GivenArguments(torch.nn.Module):
    """The model called with the given arguments only (`forward(*args)`), so that its defaults stay
    the Python values the call uses: the legacy exporter would append them as inputs (RIFE's
    `scale_list=[8, 4, 2, 1]` reaches `F.interpolate(scale_factor=...)` as tensors and fails)."""

    def __init__(self, model: torch.nn.Module, count: int):
        super().__init__()
        self.model = model
        self.onnxfix_input_names = input_names(model, count)  # the wrapped forward's own names

    def forward(self, *args):
        return self.model(*args)


class FlatOutputs(GivenArguments):
    """The model's output tensors as one tuple, in the order eager is compared in. ``tensors``:
    which leaves of the eager output are tensors: the legacy tracer turns a size kept in the
    output (x-transformers' `cache_length=k.shape[-2]`) into a tensor, which is not an output of
    eager's."""

    def __init__(self, model: torch.nn.Module, count: int, tensors: list[bool] | None = None):
        super().__init__(model, count)
        self.tensors = tensors

    def forward(self, *args):
        found = leaves(self.model(*args))
        if self.tensors is not None and len(self.tensors) == len(found):
            return tuple(leaf for leaf, tensor in zip(found, self.tensors) if tensor and isinstance(leaf, torch.Tensor))
        return tuple(leaf for leaf in found if isinstance(leaf, torch.Tensor))


def text_outputs(model: torch.nn.Module, output: Any) -> tuple[list[str], list]:
    """The text in a model's eager output (CnOCR's CTC decoder returns `[(word, prob), ...]`):
    up to three `output[i]...: 'abc'` descriptions, and [file, line] of the `return` of forward
    that returns it (the last one), or [] where the source cannot be read."""
    found: list[str] = []
    _text_paths(output, "output", found)
    if not found:
        return [], []
    try:
        forward = inspect.unwrap(type(model).forward)
        lines, first = inspect.getsourcelines(forward)
        tree = ast.parse(textwrap.dedent("".join(lines)))
        returns = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Return)]
        site = [os.path.realpath(inspect.getsourcefile(forward)), first - 1 + max(returns)] if returns else []
    except (OSError, TypeError, SyntaxError):
        site = []
    return found, site


def _text_paths(value: Any, path: str, found: list[str]) -> None:
    if len(found) >= 3:
        return
    if isinstance(value, (str, bytes)):
        found.append(f"{path}: {value[:20]!r}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value[:64]):
            _text_paths(item, f"{path}[{i}]", found)
    elif isinstance(value, dict):
        for key, item in list(value.items())[:64]:
            _text_paths(item, f"{path}[{key!r}]", found)
