"""Shape-guard reports of the export worker (guards.py) as findings at the user's line.

Torch-free: reads ``Verdict.guards``. The line is the innermost frame in the user's files when
the guard was added; when no static rule fixes that line, the message names the pattern.
"""

from __future__ import annotations

import linecache
import os
import re

from onnxfix.exporter.locations import ExportFinding, Location, StaticLink, innermost_user
from onnxfix.exporter.result import Verdict

# What the code at the guard's line does, and the way out (checked in order).
PATTERNS = (
    (re.compile(r"\b(float|int|round)\("), "a size made a Python number with {0}(): keep it a SymInt or a tensor (the ONX203 pattern)"),
    (re.compile(r"\b(math\.\w+)\("), "a size passed to {0}(): use torch ops on it (the ONX402 pattern)"),
    (re.compile(r"^\s*(if|elif|while)\b"), "Python `{0}` on a size: only the branch taken at export is in the graph; compute both sides without a Python branch (torch.where, or arithmetic such as padding by `size % 2`)"),
    (re.compile(r"\b(or|and|not)\b"), "a size condition turned into a Python bool by `{0}`: combine with tensor ops, or pad/branch without it"),
)


def guard_findings(verdict: Verdict, fallback: Location) -> list[ExportFinding]:
    findings, seen = [], set()
    for report in verdict.guards:
        where = innermost_user([(f, int(n)) for f, n, *_ in report["frames"]]) or fallback
        if (report["code"], where, report["message"]) in seen:
            continue
        seen.add((report["code"], where, report["message"]))
        findings.append(ExportFinding(report["code"], report["message"] + _pattern(where), where, verdict.exporter))
    return findings


def _pattern(where: Location) -> str:
    line = linecache.getline(where.path, where.line)
    for regex, text in PATTERNS:
        match = regex.search(line)
        if match:
            return f"; {text.format(match.group(1))}"
    return ""


def with_origins(findings: list[ExportFinding], verdict: Verdict, static: list) -> None:
    """A data-dependent guard (ONX913) names where its symbols were read out of a tensor, and
    links the static findings at those lines (relation "value-source")."""
    for finding in findings:
        if finding.code != "ONX913":
            continue
        origins = []
        for symbol, frames in verdict.unbacked.items():
            where = innermost_user([(f, int(n)) for f, n, *_ in frames])
            if where and re.search(rf"\b{symbol}\b", finding.message):
                origins.append(where)
                finding.message += f" ({symbol} is a value read out of a tensor at {_shown(where)})"
        known = {(l.code, l.path, l.line) for l in finding.fixed_by}
        finding.fixed_by += sorted({
            StaticLink(s.code, os.path.realpath(s.path), s.line, "value-source") for s in static
            for where in origins
            if (os.path.realpath(s.path), s.line) == (where.path, where.line) and finding.exporter in s.exporters
            and (s.code, os.path.realpath(s.path), s.line) not in known
        }, key=lambda l: (l.path, l.line, l.code))
        if not finding.fixed_by:
            finding.message += _data_pattern(finding.location)


def _data_pattern(where: Location) -> str:
    """No static rule fixes it: name the pattern and the way out."""
    if re.match(r"\s*(if|elif|while)\b", linecache.getline(where.path, where.line)):
        return ("; Python branch on a value read out of a tensor: compute both sides and select with "
                "torch.where (or torch.cond)")
    return "; keep the value a tensor (no .item(), .tolist(), int() or float() of it) so the graph computes with it"


def _shown(where: Location) -> str:
    text = linecache.getline(where.path, where.line).strip()
    return f"line {where.line}" + (f": `{text}`" if text else "")
