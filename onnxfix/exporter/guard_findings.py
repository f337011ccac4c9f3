"""Shape-guard reports of the export worker (guards.py) as findings at the user's line.

Torch-free: reads ``Verdict.guards``. The line is the innermost frame in the user's files when
the guard was added; when no static rule fixes that line, the message names the pattern.
"""

from __future__ import annotations

import ast
import linecache
import os
import re
from functools import lru_cache

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
            StaticLink(s.code, os.path.realpath(s.path), s.line, "value-source", s.fix is not None) for s in static
            for where in origins
            if (os.path.realpath(s.path), s.line) == (where.path, where.line) and finding.exporter in s.exporters
            and (s.code, os.path.realpath(s.path), s.line) not in known
        }, key=lambda l: (l.path, l.line, l.code))
        if not finding.fixed_by:
            finding.message += _data_pattern(finding.location)


# Control flow on a value read out of a tensor that no fixed graph can express, and why: the
# way out when there is one, else the reason no faithful rewrite exists.
NO_FIXED_GRAPH = (
    "no faithful rewrite to one exported graph: run a fixed bound of iterations with the finished "
    "ones masked (exact only when the extra iterations leave the result unchanged), or export the "
    "loop's body and run the loop outside the model"
)
DATA_CONTROL_FLOW = {
    "while": "a loop run until a value read out of a tensor says stop: the number of iterations depends "
             "on the data, and an exported graph has a fixed number; " + NO_FIXED_GRAPH,
    "for": "a loop whose count is a value read out of a tensor: the graph would unroll the count seen at "
           "export; compute over a static bound with a mask (torch.arange(bound) < n) when one exists, "
           "else " + NO_FIXED_GRAPH,
    "break": "an early exit from a loop on a value read out of a tensor: how many iterations run depends "
             "on the data; " + NO_FIXED_GRAPH,
    "return": "an early return on a value read out of a tensor: compute both results and select with "
              "torch.where when they have the same shape and dtype; otherwise there is no faithful "
              "rewrite (the output's shape would depend on the data)",
    "raise": "a check on tensor values: torch._check(not <the condition>) (what must hold) keeps it "
             "as an assertion under torch.export, or check outside forward",
    "if": "Python branch on a value read out of a tensor: compute both sides and select with "
          "torch.where (or torch.cond)",
}


def _data_pattern(where: Location) -> str:
    """No static rule fixes it: name the pattern and the way out, or why there is none."""
    kind = _control_flow_at(where)
    if kind is not None:
        return "; " + DATA_CONTROL_FLOW[kind]
    return "; keep the value a tensor (no .item(), .tolist(), int() or float() of it) so the graph computes with it"


def _control_flow_at(where: Location) -> str | None:
    """What the statement starting at the line does with its test: "while", "for", "if", or for
    an `if` whose body leaves ("break"/"continue" -> "break", "return", "raise")."""
    try:
        tree = _parsed(where.path, os.path.getmtime(where.path))
    except (OSError, SyntaxError, ValueError):
        return None
    found = [n for n in ast.walk(tree) if isinstance(n, (ast.If, ast.While, ast.For)) and n.lineno == where.line]
    if not found:
        return None
    statement = found[-1]
    if isinstance(statement, ast.While):
        return "while"
    if isinstance(statement, ast.For):
        return "for"
    return _exit_of(statement.body) or "if"


def _exit_of(body: list[ast.stmt]) -> str | None:
    """How a branch leaves, looking through nested branches but not into inner loops/functions."""
    for statement in body:
        if isinstance(statement, (ast.Break, ast.Continue)):
            return "break"
        if isinstance(statement, ast.Return):
            return "return"
        if isinstance(statement, ast.Raise):
            return "raise"
        if isinstance(statement, (ast.If, ast.With, ast.Try)):
            inner = [s for block in (getattr(statement, "body", []), getattr(statement, "orelse", [])) for s in block]
            found = _exit_of(inner)
            if found:
                return found
    return None


@lru_cache(maxsize=64)
def _parsed(path: str, mtime: float) -> ast.Module:
    with open(path, "rb") as handle:
        return ast.parse(handle.read(), path)


def _shown(where: Location) -> str:
    text = linecache.getline(where.path, where.line).strip()
    return f"line {where.line}" + (f": `{text}`" if text else "")
