"""The checks torch.export suggests for a data-dependent guard, read off a failed export.

When torch.export cannot decide a guard on a value read out of a tensor (`Eq(1, u0 + 1)` after
`start_pos = t.item()` feeds a slice), it names the user's call and suggests the checks that
would decide it, in the user's own names::

    The following call raised this error:
      File "/path/model.py", line 112, in forward
        output = F.scaled_dot_product_attention(xq, keys, values, attn_mask=mask)

    To fix the error, insert one of the following checks before this call:
      1. torch._check(1 == (1 + start_pos))
      2. torch._check(1 != (1 + start_pos))

A Python `if` on such a value (`if positions.shape[0] > 0:` after a `nonzero`) gets no
suggestion: the guard is the test itself. For an ONX913 finding at an `if` statement the test
and its negation are the candidates (`branch_checks`): if the run took one branch every time, its
check decides the guard the same way. At an `assert` (`assert len(a) == len(b)` on a count read
from the data), its test: it held whenever eager ran it.

The run's recorder evaluates each candidate at that line (exporter/recorder.py); ONX611 inserts
the ones that held on every recorded call (patterns/control_flow/suggested_check.py). Torch-free.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass

_CALL = re.compile(r'The following call raised this error:\n\s*File "([^"]+)", line (\d+)')
_SUGGESTIONS = re.compile(r"insert one of the following checks before this call:\n((?:[ \t]*\d+\. torch\._check\(.*\)\n?)+)")
_ONE = re.compile(r"^\s*\d+\. torch\._check\((.*)\)\s*$")


@dataclass(frozen=True)
class Suggestion:
    path: str  # the real path of the user's file the error names
    line: int
    conditions: tuple[str, ...]  # the conditions of torch's suggested torch._check calls


def suggestions(error: str) -> list[Suggestion]:
    """Every (call, suggested checks) pair of an export error, conditions that parse as Python
    expressions only."""
    found = []
    for call in _CALL.finditer(error):
        after = _SUGGESTIONS.search(error, call.end())
        if after is None or _CALL.search(error, call.end(), after.start()):
            continue  # the suggestions belong to a later call, or there are none
        conditions = tuple(c for c in (_condition(line) for line in after.group(1).splitlines()) if c)
        if conditions:
            found.append(Suggestion(os.path.realpath(call.group(1)), int(call.group(2)), conditions))
    return found


def _condition(line: str) -> str | None:
    match = _ONE.match(line)
    if match is None:
        return None
    try:
        ast.parse(match.group(1), mode="eval")
    except SyntaxError:
        return None
    return match.group(1)


def suggested_in(results: list, text_of=None) -> list[Suggestion]:
    """The suggestions of every failed export in ``results`` (ExporterResult), once each, and the
    branch checks of its data-dependent guards at `if` / `assert` statements (``text_of``: path
    -> the text the export ran, default the file's)."""
    seen: dict[tuple, Suggestion] = {}
    for result in results:
        for suggestion in suggestions(result.verdict.error or ""):
            seen.setdefault((suggestion.path, suggestion.line, suggestion.conditions), suggestion)
    for suggestion in branch_checks(results, text_of):
        seen.setdefault((suggestion.path, suggestion.line, suggestion.conditions), suggestion)
    return list(seen.values())


_NEGATED = {ast.Gt: "<=", ast.GtE: "<", ast.Lt: ">=", ast.LtE: ">", ast.Eq: "!=", ast.NotEq: "=="}
_OPERATOR = {ast.Gt: ">", ast.GtE: ">=", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!="}


def branch_checks(results: list, text_of=None) -> list[Suggestion]:
    """For each data-dependent guard (ONX913) the run located at an `if` statement: the test's
    conditions when it holds, and when it does not (at an `assert`: when it holds) (each a condition torch._check takes: a
    comparison, or each comparison of an `and`). ``text_of``: path -> the text the export ran
    (the fix loop's, whose lines the findings name under the user's path)."""
    found = []
    for result in results:
        for finding in result.findings:
            if finding.code != "ONX913":
                continue
            path = os.path.realpath(finding.location.path)
            statement = _guard_statement((text_of or _read)(path), finding.location.line)
            if statement is None or any(isinstance(n, _NOT_REEVALUATED) for n in ast.walk(statement.test)):
                continue
            # an assert that ran held (else eager raised): only its holding conditions
            both = isinstance(statement, ast.If)
            for conditions in (_holding(statement.test), _failing(statement.test) if both else ()):
                if conditions:
                    found.append(Suggestion(path, finding.location.line, conditions))
            # a test on a tensor's value (`if t.sum() < k:`) is no condition torch._check takes:
            # the branch the run always took is kept while exporting instead, and an assert that
            # always held is skipped (ONX611)
            test = ast.unparse(statement.test)
            found.append(Suggestion(path, finding.location.line, (f"bool({test})",)))
            if both:
                found.append(Suggestion(path, finding.location.line, (f"not bool({test})",)))
    return found


_NOT_REEVALUATED = (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)  # a second evaluation differs


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return ""


def _guard_statement(text: str, line: int) -> ast.If | ast.Assert | None:
    """The `if` statement (not an `elif`: its test runs only after the others) or the `assert`
    that starts at ``line`` of ``text``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    elifs = {id(node.orelse[0]) for node in ast.walk(tree)
             if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.Assert)) and node.lineno == line and id(node) not in elifs:
            return node
    return None


def _holding(test: ast.expr) -> tuple[str, ...]:
    return _conditions(test, holds=True)


def _failing(test: ast.expr) -> tuple[str, ...]:
    return _conditions(test, holds=False)


def _conditions(test: ast.expr, holds: bool) -> tuple[str, ...]:
    """The comparisons that say the test holds (each of an `and`'s), or that it fails (each
    negated, one per operand of an `or`); `not x` swaps the two. () for anything else."""
    joined = ast.And if holds else ast.Or
    if isinstance(test, ast.BoolOp) and isinstance(test.op, joined):
        parts = [_conditions(value, holds) for value in test.values]
        return () if not all(len(p) == 1 for p in parts) else tuple(p[0] for p in parts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _conditions(test.operand, not holds)
    if not _simple_comparison(test):
        return ()
    if holds:
        return (ast.unparse(test),)
    return (f"{ast.unparse(test.left)} {_NEGATED[type(test.ops[0])]} {ast.unparse(test.comparators[0])}",)


def _simple_comparison(test: ast.expr) -> bool:
    """`a > b`: one arithmetic comparison (not a chain, `is` or `in`), which torch._check takes as
    a symbolic bool."""
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPERATOR
