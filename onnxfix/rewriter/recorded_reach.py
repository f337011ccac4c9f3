"""Reach by evidence: the functions a recorded eager forward run executed are export-time code.

The static reach (scope.py) follows calls it can resolve: `self.sub(...)`, names, classes built
in forward. It cannot follow a call on a value whose type it does not know, such as
`distribution.get_actions(...)` on the object a method returned (Stable-Baselines3's policies).
`onnxfix export --fix` records one eager run of the model's forward (exporter/recorder.py
traces only inside `model(*args)`), and every function of a user file that ran there runs
while exporting as well: it joins the scope, so the rules see it and the run's types come with
it. Without evidence (the static path) nothing changes.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Iterator

from onnxfix.rewriter.evidence import FileEvidence
from onnxfix.rewriter.function_body import scope_of_function, walk_function_body
from onnxfix.rewriter.module_index import ClassInfo, ModuleIndex, module_statements
from onnxfix.rewriter.call_modes import CallSiteModes
from onnxfix.rewriter.scope import ALL_MODES, HELPER_PREFIX, Entry, ExportFunction, ExportScope

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
# How a finding in such a function says where it runs from (the run does not record its caller).
RECORDED_ENTRY = "the recorded forward run"


def widened_by_evidence(scope: ExportScope, module: ModuleIndex, evidence: FileEvidence | None) -> ExportScope:
    """``scope`` with the module's top-level functions and methods that ``evidence`` saw run
    (and the static reach missed) added, each with an entry naming the recorded run."""
    if evidence is None:
        return scope
    known = {id(fn.node) for fn in scope.functions}
    added = []
    for node, cls, key in _module_functions(module):
        if id(node) in known or node.name.startswith(HELPER_PREFIX) or not _ran(evidence, node):
            continue
        modes = _modes_by_name(scope, node)
        if modes:
            entry = Entry(RECORDED_ENTRY, module.identity, 0, modes)
            added.append(ExportFunction(node, module, cls, scope_of_function(node, module.scope), entry, False, key))
    return replace(scope, functions=[*scope.functions, *added]) if added else scope


def _modes_by_name(scope: ExportScope, callee: ast.AST) -> frozenset[str]:
    """The exporters that run ``callee``, judged by the calls of its name (`dist.get_actions(...)`)
    in the export-time functions: the union of what each call site's export guards leave (an
    eager run does not export, so it also ran calls that `if not torch.onnx.is_in_onnx_export():`
    keeps from every exporter). Every exporter when no call names it (a `getattr`, another file)."""
    sites = [(fn, node) for fn in scope.functions for node, _ in walk_function_body(fn.node)
             if isinstance(node, ast.Call) and _called_name(node.func) == callee.name]
    if not sites:
        return ALL_MODES
    modes: frozenset[str] = frozenset()
    for fn, node in sites:
        modes |= CallSiteModes(fn).callee_modes(node, callee)
    return modes


def _called_name(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _ran(evidence: FileEvidence, node: ast.AST) -> bool:
    """The recorded run called it, or an export decomposed a call inside it."""
    record = evidence.for_function(node)
    if record is not None and record.calls > 0:
        return True
    return any(node.lineno <= line <= node.end_lineno for line in evidence.decomposed)


def _module_functions(module: ModuleIndex) -> Iterator[tuple[ast.AST, ClassInfo | None, str]]:
    for node in module_statements(module.tree):
        if isinstance(node, FUNCTION_NODES):
            yield node, None, node.name
        elif isinstance(node, ast.ClassDef):
            info = module.classes.get(node.name)
            if info is None or info.node is not node:
                continue
            for method in node.body:
                if isinstance(method, FUNCTION_NODES):
                    yield method, info, f"{node.name}.{method.name}"
