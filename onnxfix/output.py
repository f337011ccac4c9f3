"""Rendering results: text (ruff's concise layout), json, github annotations, sarif, diffs.

JSON schema (one object per finding, a list, sorted by path, line, column):
  {"code", "name", "message", "filename", "location": {"row", "column"},
   "end_location": {"row", "column"}, "exporters": [...], "reached_from": str|null,
   "fix": null | {"applicability": "safe"|"unsafe", "message",
                  "edits": [{"content", "start", "end"}]}}   (start/end: character offsets)
With --diff: an object {"findings": [the findings the fixes leave], "diffs": [{"filename",
"diff"}]} (one unified diff per file the fixes change), so stdout stays one JSON document.
"""

from __future__ import annotations

import difflib
import json

from onnxfix._version import __version__
from onnxfix.config import EXPORTERS
from onnxfix.rewriter.rule import Finding, Rule


def text_line(finding: Finding, unsafe_fixes: bool) -> str:
    marker = " [*]" if finding.fix and (finding.fix.safe or unsafe_fixes) else ""
    return f"{finding.path}:{finding.line}:{finding.col}: {finding.code}{marker} {finding.full_message()}"


def error_line(path: str, line: int, col: int, message: str) -> str:
    return f"{path}:{line}:{col}: error: {message}"


def summary(findings: list[Finding], unsafe_fixes: bool, exporters, errors: int = 0, files: int = 1) -> str:
    """The check summary; it names the exporters checked for, so a run that targeted the wrong
    ones (or none) does not read as a clean bill of health."""
    if not findings:
        return _clean(exporters, errors, files)
    text = f"Found {_count(len(findings), 'finding')} ({_exporters(exporters)})."
    fixable = sum(1 for f in findings if f.fix and (f.fix.safe or unsafe_fixes))
    hidden = sum(1 for f in findings if f.fix and not f.fix.safe and not unsafe_fixes)
    if fixable:
        text += f"\n[*] {fixable} fixable with `--write`"
        if hidden:
            text += f" ({hidden} more with `--unsafe-fixes`)"
        text += "."
    elif hidden:
        text += f"\n{hidden} fixable with `--write --unsafe-fixes`."
    return text + _errors(errors)


def fix_summary(remaining: list[Finding], fixed: int, changed_files: int, unsafe_fixes: bool, exporters,
                would: bool = False, errors: int = 0, files: int = 1) -> str:
    """The --write / --diff summary: what was (or would be) fixed and what is left, by kind,
    so a diff with no safe fix still says that findings remain."""
    if not fixed and not remaining:
        return _clean(exporters, errors, files)
    # Not "Found N": fixed + remaining can be fewer than a check reports, since a fix that
    # rewrites an enclosing expression also removes the findings inside it.
    verb = "Would fix" if would else "Fixed"
    where = f" in {_count(changed_files, 'file')}" if fixed else ""
    text = f"{verb} {_count(fixed, 'finding')}{where}, {len(remaining)} remaining ({_exporters(exporters)})."
    if remaining:
        text += f"\nRemaining: {_remaining_kinds(remaining, unsafe_fixes)}."
    return text + _errors(errors)


def _remaining_kinds(remaining: list[Finding], unsafe_fixes: bool) -> str:
    unsafe = sum(1 for f in remaining if f.fix and not f.fix.safe and not unsafe_fixes)
    no_fix = sum(1 for f in remaining if not f.fix)
    again = len(remaining) - unsafe - no_fix  # a fix that overlapped another one this run
    kinds = [
        (again, "with a fix left for another run"),
        (unsafe, "with an unsafe fix (use `--unsafe-fixes`)"),
        (no_fix, "with no fix"),
    ]
    return ", ".join(f"{n} {what}" for n, what in kinds if n)


def _clean(exporters, errors: int, files: int) -> str:
    if errors:  # never "All checks passed!" next to an error
        return f"No findings in the files checked ({_exporters(exporters)}).{_errors(errors)}"
    if not files:  # nor when nothing was checked
        return f"No Python files checked ({_exporters(exporters)})."
    return f"All checks passed! ({_exporters(exporters)})"


def _errors(errors: int) -> str:
    return f"\n{errors} path(s) could not be checked: see the errors above." if errors else ""


def _exporters(exporters) -> str:
    """The exporters checked for, and why when they were inferred (rewriter/exporter_inference.py)
    rather than configured; ``exporters`` is a Settings or a collection of names."""
    reason = getattr(exporters, "exporters_reason", None) or ""
    names = getattr(exporters, "exporters", exporters)
    text = "exporters: " + ", ".join(e for e in EXPORTERS if e in names)
    return text + (f"; {reason}" if reason not in ("", "config", "--exporters") else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def finding_json(finding: Finding) -> dict:
    fix = None
    if finding.fix:
        fix = {
            "applicability": finding.fix.applicability,
            "message": finding.fix.title,
            "edits": [{"content": e.text, "start": e.start, "end": e.end} for e in finding.fix.edits],
        }
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.full_message(),
        "filename": finding.path,
        "location": {"row": finding.line, "column": finding.col},
        "end_location": {"row": finding.end_line, "column": finding.end_col},
        "exporters": list(finding.exporters),
        "reached_from": finding.reached_from,
        "fix": fix,
    }


def json_report(findings: list[Finding], diffs: list[tuple[str, str]] | None = None) -> str:
    """``diffs`` ((path, unified diff) per changed file) is given for --diff."""
    report = [finding_json(f) for f in findings]
    if diffs is None:
        return json.dumps(report, indent=2)
    files = [{"filename": path, "diff": diff} for path, diff in diffs]
    return json.dumps({"findings": report, "diffs": files}, indent=2)


def github_line(finding: Finding) -> str:
    title = f"onnxfix ({finding.code})"
    return (
        f"::error title={title},file={finding.path},line={finding.line},col={finding.col},"
        f"endLine={finding.end_line},endColumn={finding.end_col}::"
        f"{finding.path}:{finding.line}:{finding.col}: {finding.code} {finding.full_message()}"
    )


def sarif_report(findings: list[Finding], rules: tuple[Rule, ...]) -> str:
    """SARIF 2.1.0, as GitHub code scanning reads it."""
    rule_index = {rule.code: i for i, rule in enumerate(rules)}
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "onnxfix",
                        "version": __version__,
                        "informationUri": "https://github.com/onnxfix/onnxfix",
                        "rules": [
                            {
                                "id": rule.code,
                                "name": rule.name,
                                "shortDescription": {"text": rule.summary},
                                "fullDescription": {"text": rule.doc.render(rule.code, rule.name)},
                                "help": {"text": rule.doc.render(rule.code, rule.name)},
                            }
                            for rule in rules
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": f.code,
                        "ruleIndex": rule_index.get(f.code, 0),
                        "level": "error",
                        "message": {"text": f.full_message()},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f.path.replace("\\", "/")},
                                    "region": {
                                        "startLine": f.line,
                                        "startColumn": f.col,
                                        "endLine": f.end_line,
                                        "endColumn": f.end_col,
                                    },
                                }
                            }
                        ],
                    }
                    for f in findings
                ],
            }
        ],
    }
    return json.dumps(document, indent=2)


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{path.lstrip('/')}",  # an absolute path: a/abs/path, as git diff --no-index
        tofile=f"b/{path.lstrip('/')}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def rules_table(rules: tuple[Rule, ...], markdown: bool = False) -> str:
    header = ("Code", "Name", "Fix", "Safety", "Breaks", "Summary")
    rows = [
        (r.code, r.name, r.fix_availability, r.default_safety, ", ".join(r.exporters), r.summary)
        for r in rules
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    return "\n".join(
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip()
        for row in [header, *rows]
    )


def rule_json(rule, explanation: str | None = None) -> dict:
    """One rule (static, or an ONX9xx export-time code) as `onnxfix rule(s) --format json` prints it.

    Keys: code, name, kind ("static" | "export"), summary, fix, safety, exporters, fixed_by,
    explanation (the Markdown `onnxfix rule CODE` prints).
    """
    fixed_by = getattr(rule, "fixed_by", None)
    return {
        "code": rule.code,
        "name": rule.name,
        "kind": "static" if fixed_by is None else "export",
        "summary": rule.summary,
        "fix": rule.fix_availability,
        "safety": rule.default_safety,
        "exporters": list(rule.exporters),
        "fixed_by": list(fixed_by or ()),
        "explanation": explanation if explanation is not None else rule.doc.render(rule.code, rule.name),
    }


def rules_json(rules) -> str:
    return json.dumps([rule_json(r) for r in rules], indent=2)
