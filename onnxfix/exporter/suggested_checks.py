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

The run's recorder evaluates each suggestion at that line (exporter/recorder.py); ONX611 inserts
the one that held on every recorded call (patterns/control_flow/suggested_check.py). Torch-free.
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


def suggested_in(results: list) -> list[Suggestion]:
    """The suggestions of every failed export in ``results`` (ExporterResult), once each."""
    seen: dict[tuple, Suggestion] = {}
    for result in results:
        for suggestion in suggestions(result.verdict.error or ""):
            seen.setdefault((suggestion.path, suggestion.line, suggestion.conditions), suggestion)
    return list(seen.values())
