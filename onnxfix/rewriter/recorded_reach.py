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
from onnxfix.rewriter.function_body import scope_of_function
from onnxfix.rewriter.module_index import ClassInfo, ModuleIndex
from onnxfix.rewriter.scope import HELPER_PREFIX, Entry, ExportFunction, ExportScope

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
# How a finding in such a function says where it runs from (the run does not record its caller).
RECORDED_ENTRY = "the recorded forward run"


def widened_by_evidence(scope: ExportScope, module: ModuleIndex, evidence: FileEvidence | None) -> ExportScope:
    """``scope`` with the module's top-level functions and methods that ``evidence`` saw run
    (and the static reach missed) added, each with an entry naming the recorded run."""
    if evidence is None:
        return scope
    known = {id(fn.node) for fn in scope.functions}
    added = [
        ExportFunction(node, module, cls, scope_of_function(node, module.scope),
                       Entry(RECORDED_ENTRY, module.identity, 0), False, key)
        for node, cls, key in _module_functions(module)
        if id(node) not in known and not node.name.startswith(HELPER_PREFIX) and _ran(evidence, node)
    ]
    return replace(scope, functions=[*scope.functions, *added]) if added else scope


def _ran(evidence: FileEvidence, node: ast.AST) -> bool:
    record = evidence.for_function(node)
    return record is not None and record.calls > 0


def _module_functions(module: ModuleIndex) -> Iterator[tuple[ast.AST, ClassInfo | None, str]]:
    for node in module.tree.body:
        if isinstance(node, FUNCTION_NODES):
            yield node, None, node.name
        elif isinstance(node, ast.ClassDef):
            info = module.classes.get(node.name)
            if info is None or info.node is not node:
                continue
            for method in node.body:
                if isinstance(method, FUNCTION_NODES):
                    yield method, info, f"{node.name}.{method.name}"
