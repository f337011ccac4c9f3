"""What a rule is: code, name, documentation, matcher and fixer, and what it reports.

A rule lives in a module of ``onnxfix/patterns/``. It subclasses ``Rule`` and implements any of
``visit_<AstNodeType>(node, ctx)`` (called for every node of that type in export-time code) and
``check_function(ctx)`` (called once per export-time function, for analyses that span
statements). Both yield ``Finding`` objects built with ``ctx.report(...)``.

A rule about the file's script code rather than its model code (``torch.onnx.export(...)``
call sites) sets ``scope = "module"`` and implements ``check_module(ctx)`` instead: it is called
once per file with a ``ModuleContext``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Iterable

from onnxfix.config import EXPORTERS

if TYPE_CHECKING:
    from onnxfix.rewriter.context import FunctionContext, ModuleContext



@dataclass(frozen=True)
class RuleDoc:
    """The fixed documentation sections every rule has (ruff's layout)."""

    what: str
    why: str
    example: str
    use_instead: str
    fix_safety: str
    references: tuple[str, ...] = ()

    def render(self, code: str, name: str) -> str:
        parts = [
            f"# {code} ({name})",
            "## What it does\n" + _dedent(self.what),
            "## Why it breaks export\n" + _dedent(self.why),
            "## Example\n```python\n" + _dedent(self.example) + "\n```",
            "Use instead:\n```python\n" + _dedent(self.use_instead) + "\n```",
            "## Fix safety\n" + _dedent(self.fix_safety),
        ]
        if self.references:
            parts.append("## References\n" + "\n".join(f"- {ref}" for ref in self.references))
        return "\n\n".join(parts) + "\n"


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] (character offsets in the decoded source) with ``text``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Helper:
    """A module-level function a fix needs, written into the user's file once."""

    name: str
    source: str


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    safe: bool
    imports: tuple[str, ...] = ()  # modules the new code needs bound, e.g. ("torch",)
    helpers: tuple[Helper, ...] = ()
    group: str | None = None  # findings sharing a group share one fix, applied all-or-nothing
    # An unsafe fix that does more (both exporters where this one fixes one), applied in this one's
    # place with --unsafe-fixes: `torch.sym_int(f)` safe, `a // b` stronger (engine.fix_text).
    stronger: "Fix | None" = None
    # A fix that keeps the value symbolic under the legacy exporter too, reported in this one's
    # place when the project targets it (engine.check_text): `torch.sym_int(f)` for torch.export,
    # `_onnx_sym_int(f)` (a graph value while tracing) for both. Kept apart so that a project on
    # torch.export alone gets the plain torch call and no helper.
    for_legacy: "Fix | None" = None
    # what tells this fix apart from another of the same rule on the same code (engine.fix_key):
    # ONX611's checks, several of which may go before one statement, one export at a time
    key: str = ""

    @property
    def applicability(self) -> str:
        return "safe" if self.safe else "unsafe"


@dataclass
class Finding:
    code: str
    name: str
    message: str
    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    exporters: tuple[str, ...]
    fix: Fix | None = None
    reached_from: str | None = None  # "Model.forward, model.py:12" for code reached via calls
    # (code, line, col) of another rule's finding whose fix covers this one: this one is dropped
    # where that one is reported (engine.py), and stands where it is not (its rule not selected)
    deferred_to: tuple[str, int, int] | None = None

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code)

    def full_message(self) -> str:
        if self.reached_from:
            return f"{self.message} (reached from {self.reached_from})"
        return self.message


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line, used by `onnxfix rules`
    doc: ClassVar[RuleDoc]
    fix_availability: ClassVar[str] = "never"  # always | sometimes | never
    default_safety: ClassVar[str] = "-"  # safe | unsafe | per-finding | -
    # Exporters the pattern breaks; a finding may narrow this (ctx.report(exporters=...)).
    exporters: ClassVar[tuple[str, ...]] = EXPORTERS
    # Pre-filter (runner.py): strings at least one of which occurs in any file this rule can
    # report in; one that is a Python name must occur as a whole word ("item" is not found in
    # "items"). e.g. ("item",) for `.item()`. A file containing no selected rule's trigger is
    # never parsed. Empty: always parse (the safe default for a new rule).
    triggers: ClassVar[tuple[str, ...]] = ()
    scope: ClassVar[str] = "function"  # "module": check_module runs once per file
    # True when the hazard is Python running at trace time (a loop unrolled, a tensor read as a
    # number): code the legacy exporter runs compiled by TorchScript (a
    # `@torch.jit._script_if_tracing` function) does not have it, an operator's export does.
    python_hazard: ClassVar[bool] = False
    # True when the rule reports only on a run's evidence (`onnxfix export`): never statically
    needs_run: ClassVar[bool] = False
    # True when the fix assumes what the run saw (a check that held, a branch always taken): the
    # fix loop tries it only after the other fixes at the same lines, which keep the semantics
    assumes_run: ClassVar[bool] = False
    # True when the fix changes what eager computes where the original leaves it unspecified (the
    # order of tied sort keys): the fix loop keeps it only with some exporter's verdict improved
    changes_eager: ClassVar[bool] = False

    def check_function(self, ctx: "FunctionContext") -> Iterable[Finding]:
        return ()

    def check_module(self, ctx: "ModuleContext") -> Iterable[Finding]:
        return ()

    @classmethod
    def visited_node_types(cls) -> dict[type, str]:
        """Map ast node classes to the names of this rule's visit_ methods."""
        return dict(_visit_methods(cls))


@dataclass
class FileResult:
    """Everything checking one file produced."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    error: tuple[int, int, str] | None = None  # (line, col, message)
    fixed_text: str | None = None  # set when fixing changed the file
    original_text: str | None = None
    fixes_applied: int = 0


@functools.cache
def _visit_methods(cls: type) -> tuple[tuple[type, str], ...]:
    """(ast node class, visit_ method name) of a rule class, found once per class: every narrowed
    RuleSet (one per combination of triggers a file holds) asks again (inspect.getmembers: 39,000
    calls, 3 s, on the real-world corpus)."""
    found = []
    for attr, _ in inspect.getmembers(cls, inspect.isfunction):
        if attr.startswith("visit_"):
            node_type = getattr(ast, attr[len("visit_") :], None)
            if node_type is None:
                raise TypeError(f"{cls.__name__}.{attr}: no ast node type of that name")
            found.append((node_type, attr))
    return tuple(found)
