"""Shape-guard reports of the export worker (guards.py) as findings at the user's line.

Torch-free: reads ``Verdict.guards``. The line is the innermost frame in the user's files when
the guard was added; when no static rule fixes that line, the message names the pattern.
"""

from __future__ import annotations

import linecache
import re

from onnxfix.exporter.result import Verdict
from onnxfix.exporter.sourcemap import ExportFinding, Location, innermost_user

# What the code at the guard's line does, and the way out (checked in order).
PATTERNS = (
    (re.compile(r"\b(float|int|round)\("), "a size made a Python number with {0}(): keep it a SymInt or a tensor (the ONX203 pattern)"),
    (re.compile(r"\b(math\.\w+)\("), "a size passed to {0}(): use torch ops on it (the ONX402 pattern)"),
    (re.compile(r"^\s*(if|elif|while)\b"), "Python `{0}` on a size: only the branch taken at export is in the graph; compute both without branching (e.g. pad by `size % 2`, which is 0 when even)"),
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
