"""Which exporters run a call: the modes a caller is reached in, less the exporters its export
guards keep away from the call site (CallSiteModes), and which exporters never run a function so
that a rule's hazard occurs (exporters_not_running)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator

from onnxfix.rewriter.export_guards import exporters_skipping, is_guard_call
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.scripting import SCRIPTED, jit_scripted, scripted_if_tracing

if TYPE_CHECKING:
    from onnxfix.rewriter.scope import ExportFunction


class CallSiteModes:
    """How the exporters run what a function calls: as they run the function, less the
    exporters its export guards keep away from the call site; a `@torch.jit._script_if_tracing`
    callee is compiled by TorchScript under the legacy exporter (and traced as Python by dynamo,
    which is not tracing in TorchScript's sense: measured in tests/test_export_guards.py)."""

    def __init__(self, fn: "ExportFunction"):
        self.modes = fn.entry.modes
        body = walk_function_body(fn.node)
        # Most functions have no guard: their call sites need no parent map.
        self.parents = {id(n): p for n, p in body} if any(is_guard_call(n) for n, _ in body) else None

    def callee_modes(self, site: ast.AST, callee: ast.AST) -> frozenset[str]:
        modes = set(self.modes)
        if self.parents is not None:
            skipped = exporters_skipping(site, self._ancestors(site))
            modes = {m for m in modes if exporter_of_mode(m) not in skipped}
        if "legacy" in modes and (scripted_if_tracing(callee) or jit_scripted(callee)):
            modes = (modes - {"legacy"}) | {SCRIPTED}
        return frozenset(modes)

    def _ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self.parents.get(id(node))
        while current is not None:
            yield current
            current = self.parents.get(id(current))


def exporter_of_mode(mode: str) -> str:
    return "legacy" if mode == SCRIPTED else mode


def exporters_not_running(modes: frozenset[str], python_hazard: bool) -> frozenset[str]:
    """Exporters that never run a function reached in ``modes`` so that a rule's hazard occurs:
    a ``python_hazard`` (Python running at trace time: a loop unrolled, a number baked in) does
    not occur where the legacy exporter runs the function compiled by TorchScript."""
    running = {m for m in modes if m != SCRIPTED}
    if SCRIPTED in modes and not python_hazard:
        running.add("legacy")
    return frozenset({"dynamo", "legacy"} - running)
