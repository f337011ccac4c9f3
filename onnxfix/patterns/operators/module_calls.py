"""`nn.AdaptiveAvgPool2d(3)(x)` is another spelling of `F.adaptive_avg_pool2d(x, 3)`: the torch.nn
layers whose forward is one torch.nn.functional call (or one Tensor method of the input:
`nn.Unflatten`), matched by the decomposition rules.

Which layer calls which function, with which of its attributes, is read from the installed
torch's own source by ``bench/nn_module_forwards.py`` (``onnxfix/data/nn_module_forwards.json``),
not typed by hand. A called module's class is known statically for ``self.<attr>(x)`` where
``__init__`` assigned ``nn.<Layer>(...)`` (its constructor arguments then stand for the
attributes), and from a recorded run's evidence for a local name (``for pool in self.pools:
pool(x)``), whose constructor arguments are unknown.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from onnxfix.decompositions import Decomposition
from onnxfix.rewriter.context import FunctionContext

DATA = Path(__file__).resolve().parents[2] / "data" / "nn_module_forwards.json"
UNKNOWN = "_onnxfix_unknown_argument"  # an argument the rule cannot read: never a literal


@lru_cache(maxsize=1)
def layers() -> dict[str, dict]:
    return json.loads(DATA.read_text())["layers"]


@dataclass(frozen=True)
class ModuleCall:
    layer: str  # "AdaptiveAvgPool2d"
    receiver: str  # the called module's source text: "self.pool", "pool"
    function: str  # "torch.nn.functional.adaptive_avg_pool2d", "Tensor.unflatten"
    equivalent: ast.Call  # the functional call it makes, the layer's constructor arguments filled in
    passed: dict[str, ast.expr]  # forward's arguments after the tensor, as passed or defaulted


def match_module_call(node: ast.Call, ctx: FunctionContext, targets: dict[str, Decomposition]):
    """(ModuleCall, decomposition) for a call of a torch.nn layer whose functional form has a
    decomposition, else None."""
    if not node.args or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    found = _layer_of(node.func, ctx)
    if found is None:
        return None
    layer, constructor = found
    entry = layers().get(layer)
    if entry is None or entry["function"] not in targets:
        return None
    passed = forward_arguments(entry, node)
    if passed is None:
        return None
    equivalent = _equivalent(entry, node.args[0], constructor, passed)
    call = ModuleCall(layer, ctx.segment(node.func), entry["function"], equivalent, passed)
    return call, targets[entry["function"]]


def forward_arguments(entry: dict, node: ast.Call) -> dict[str, ast.expr] | None:
    """The layer's forward arguments after the tensor (`indices` of `self.unpool(x, indices)`),
    each as passed or as its literal default; None when the call does not bind to forward."""
    names = entry.get("forward", [])
    extra = node.args[1:]
    if len(extra) > len(names) or any(k.arg not in names for k in node.keywords):
        return None
    passed = dict(zip(names, extra))
    for keyword in node.keywords:
        if keyword.arg in passed:
            return None
        passed[keyword.arg] = keyword.value
    for name in names:
        if name not in passed:
            if name not in entry.get("defaults", {}):
                return None
            passed[name] = ast.Constant(ast.literal_eval(entry["defaults"][name]))
    return passed


def _layer_of(func: ast.expr, ctx: FunctionContext) -> tuple[str, ast.Call | None] | None:
    """The torch.nn class of the called module, and its constructor call when known."""
    if ctx.is_self_attr(func):
        value = ctx.only_self_attr_value(func)  # not the first of layers chosen by a branch (MMAction2's pools)
        if isinstance(value, ast.Call):
            qualname = ctx.file.module.scope.qualname(value.func) or ""
            if qualname.startswith("torch.nn."):  # nn.X or nn.modules.<file>.X: the table says which
                return qualname.rsplit(".", 1)[1], value
        return None
    if isinstance(func, ast.Name):
        values = ctx.observed(func)
        types = {v.type for v in values or ()}
        if values and all(v.kind == "other" for v in values) and len(types) == 1:
            (qualname,) = types
            if qualname.startswith("torch.nn.modules."):
                return qualname.rsplit(".", 1)[1], None
    return None


def _equivalent(entry: dict, tensor: ast.expr, constructor: ast.Call | None, passed: dict[str, ast.expr]) -> ast.Call:
    """F.<function>(tensor, <attributes>) with each attribute replaced by the constructor's
    argument for it (a parameter of the same name), an unknown name where it is not known."""

    def value(spelled: str) -> ast.expr:
        if spelled == "input":
            return tensor
        if spelled.startswith("arg:"):
            return passed[spelled[4:]]
        if not spelled.startswith("self."):
            return ast.Constant(ast.literal_eval(spelled))
        given = _constructor_argument(constructor, entry["init"], spelled[5:]) if constructor is not None else None
        return given if given is not None else ast.Name(UNKNOWN, ast.Load())

    # a Tensor method's layer (`nn.Unflatten`) is judged as the function form, the tensor first
    func = ast.Attribute(ast.Name("F", ast.Load()), entry["function"].rsplit(".", 1)[1], ast.Load())
    keywords = [ast.keyword(name, value(v)) for name, v in entry["keywords"].items()]
    return ast.Call(func, [value(a) for a in entry["args"]], keywords)


def _constructor_argument(call: ast.Call, parameters: list[str], name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if name in parameters and parameters.index(name) < len(call.args):
        argument = call.args[parameters.index(name)]
        return None if isinstance(argument, ast.Starred) else argument
    return None  # the layer's default: not necessarily the function's


def arguments_text(call: ModuleCall, tensor: str, segment) -> str:
    """The helper call's arguments: the tensor, then the layer's attributes read off the module
    itself (``self.pool.output_size``), so the rewrite holds whatever the constructor got, and
    forward's other arguments as the call passed them (``segment``: an expression's source)."""

    def text(spelled: str) -> str:
        if spelled == "input":
            return tensor
        if spelled.startswith("arg:"):
            argument = call.passed[spelled[4:]]
            defaulted = not hasattr(argument, "lineno")  # forward's default, not in the source
            return repr(argument.value) if defaulted else segment(argument)
        return f"{call.receiver}.{spelled[5:]}" if spelled.startswith("self.") else spelled

    entry = layers()[call.layer]
    parts = [text(a) for a in entry["args"]] + [f"{k}={text(v)}" for k, v in entry["keywords"].items()]
    return ", ".join(parts)
