"""What every rule context offers about the one file it checks: the file's parsed source, index,
evidence and call sites (FileContext), and source text, edits and findings (_FileView, the base
of context.py's FunctionContext and ModuleContext)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from onnxfix.config import DYNAMO
from onnxfix.rewriter.callsites import CallSites
from onnxfix.rewriter.evidence import FileEvidence
from onnxfix.rewriter.integers import CycleLedger
from onnxfix.rewriter.module_index import ModuleIndex
from onnxfix.rewriter.rule import Edit, Finding, Fix
from onnxfix.rewriter.source import SourceFile

if TYPE_CHECKING:
    from onnxfix.rewriter.rule import Rule


@dataclass
class FileContext:
    source: SourceFile
    module: ModuleIndex
    display_path: str
    evidence: FileEvidence | None = None  # what an eager run saw in this exact text, if one ran
    calls: CallSites | None = None  # what parameters receive at the file's call sites (callsites.py)
    cycles: CycleLedger = field(default_factory=CycleLedger)  # the oracles' assumed answers (integers.py)


LINE_LIMIT = 99  # a fix's replacement line longer than this is laid out one element per line


class FileView:
    """What every rule context offers: source text, edits and findings in one file."""

    file: FileContext

    def segment(self, node: ast.AST) -> str:
        return self.file.source.segment(node)

    def replace(self, node: ast.AST, text: str) -> Edit:
        start, end = self.file.source.span(node)
        return Edit(start, end, text)

    def bracketed(self, node: ast.AST, opener: str, items: list[str], closer: str) -> str:
        """Replacement text for `node`: `opener` + the items + `closer` on one line, or, where
        that line would pass LINE_LIMIT, one item per line with a trailing comma, indented one
        level past the statement (the layout black gives it)."""
        one_line = f"{opener}{', '.join(items)}{closer}"
        source = self.file.source
        line = source.line_text(node.lineno)
        before = source.column(node.lineno, node.col_offset) - 1
        after = len(source.line_text(node.end_lineno)) - (source.column(node.end_lineno, node.end_col_offset) - 1)
        if node.lineno == node.end_lineno and before + len(one_line) + after <= LINE_LIMIT:
            return one_line
        indent = line[: len(line) - len(line.lstrip())]
        newline = source.newline
        body = "".join(f"{indent}    {item},{newline}" for item in items)
        return f"{opener}{newline}{body}{indent}{closer}"

    def _finding(self, rule: "Rule", node: ast.AST, message: str | None, fix: Fix | None,
                 exporters: tuple[str, ...] | None, reached_from: str | None = None,
                 deferred_to: tuple[str, ast.AST] | None = None) -> Finding:
        source = self.file.source
        exporters = rule.exporters if exporters is None else exporters
        evidence = self.file.evidence
        if evidence is not None and node.lineno in evidence.specialized and fix is not None and DYNAMO not in exporters:
            # the run's guard specialized a dynamic dim on this line: torch.export is affected
            # too, whatever the rule measured on its own cases (a size cast behind `math.ceil`)
            exporters = (*exporters, DYNAMO)
        return Finding(
            code=rule.code, name=rule.name, message=message or rule.summary, path=self.file.display_path,
            line=node.lineno, col=source.column(node.lineno, node.col_offset),
            end_line=node.end_lineno, end_col=source.column(node.end_lineno, node.end_col_offset),
            exporters=exporters, fix=fix, reached_from=reached_from,
            deferred_to=None if deferred_to is None else (
                deferred_to[0], deferred_to[1].lineno, source.column(deferred_to[1].lineno, deferred_to[1].col_offset)),
        )
