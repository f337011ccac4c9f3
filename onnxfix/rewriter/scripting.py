"""Where TorchScript compiles a function the legacy exporter reaches: `@torch.jit.script`,
`script_if_tracing`, and what a scripted function or a `torch.jit.script(...)` call compiles."""

from __future__ import annotations

import ast
import functools

from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.tree_walk import walk

# How the exporters run a reached function: "dynamo" and "legacy" trace it as Python; SCRIPTED
# is the legacy exporter running it compiled by TorchScript (a `@torch.jit._script_if_tracing`
# function and what it calls), where no Python runs at trace time.
SCRIPTED = "scripted"
SCRIPT_IF_TRACING = ("script_if_tracing", "_script_if_tracing")  # torch.jit's public and private names


def compiled_by_torchscript(node: ast.AST, modes: frozenset[str]) -> bool:
    """A function TorchScript compiles: decorated `@torch.jit.script` (or `script_if_tracing`), or reached
    from one the legacy exporter scripts. A fix there must be TorchScript (no `is_exporting()`, ...)."""
    decorators = getattr(node, "decorator_list", ())
    return SCRIPTED in modes or any(decorator_name(d) in ("script", *SCRIPT_IF_TRACING) for d in decorators)


def scripted_in_module(node: ast.AST, tree: ast.Module) -> bool:
    """TorchScript may compile ``node`` in ways the reach does not follow: a `@torch.jit.script`
    function of its module calls it by name, or the module scripts something by a call
    (`torch.jit.script(Inner())` compiles the module's methods and what they call)."""
    scripts, called = _scripting_in_module(tree)
    return scripts or getattr(node, "name", None) in called


@functools.lru_cache(maxsize=64)
def _scripting_in_module(tree: ast.Module) -> tuple[bool, frozenset]:
    """(the module scripts something by a call, the last names called inside its `@torch.jit.script`
    functions): one walk of the module for all of its functions."""
    called: set = set()
    functions: dict[str, list[ast.FunctionDef]] = {}
    for function in walk(tree):
        if isinstance(function, ast.Call) and (dotted_parts(function.func) or [])[-2:] == ["jit", "script"]:
            return True, frozenset()
        if isinstance(function, ast.FunctionDef):
            functions.setdefault(function.name, []).append(function)
            if compiled_by_torchscript(function, frozenset()):
                called.update(_called_names(function))
    # and what those call, transitively: TorchScript compiles every function a scripted one reaches
    pending = list(called)
    while pending:
        for function in functions.get(pending.pop(), ()):
            new = _called_names(function) - called
            called |= new
            pending.extend(new)
    return False, frozenset(called)


def _called_names(function: ast.FunctionDef) -> set:
    """The last names of the calls in ``function``."""
    return {(dotted_parts(n.func) or [None])[-1] for n in walk(function) if isinstance(n, ast.Call)}


def jit_scripted(node: ast.AST) -> bool:
    """Decorated `@torch.jit.script` (any spelling ending `jit.script`): a ScriptFunction, which the
    legacy exporter's tracer records as its TorchScript graph (an `if` on a tensor is a prim::If
    there, not a branch taken once)."""
    return any((dotted_parts(d) or [])[-2:] == ["jit", "script"] for d in getattr(node, "decorator_list", ()))


def unbound_in_class(node: ast.AST) -> bool:
    """A function of a class body that Python does not bind to the instance: a `@staticmethod`, or
    one decorated `@torch.jit.script` (a ScriptFunction is no descriptor: pnnx's `self._abs(x)`
    passes `x` as the first argument; another library's `@script` may return a plain function, which
    Python binds). `self.f(a)` binds `a` to its first parameter."""
    return jit_scripted(node) or any(decorator_name(d) == "staticmethod" for d in getattr(node, "decorator_list", ()))


def scripted_if_tracing(node: ast.AST) -> bool:
    decorators = getattr(node, "decorator_list", ())
    return any(decorator_name(d) in SCRIPT_IF_TRACING for d in decorators)


def decorator_name(node: ast.expr) -> str | None:
    parts = dotted_parts(node)
    return parts[-1] if parts else None


def not_scriptable(fix) -> bool:
    """A fix TorchScript cannot compile: a helper (each guards on torch.onnx.is_in_onnx_export()), or
    an export check written into the code."""
    return bool(fix.helpers) or any("is_exporting()" in e.text or "is_in_onnx_export()" in e.text for e in fix.edits)
