"""Where an export finding points in the user's code: the finding and location types, and
which frames are the user's (not torch, site-packages, the standard library or onnxfix itself).

Below sourcemap.py (verdicts to findings) and guard_findings.py (shape guards to findings), which
both build these. Plain data, no torch.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from onnxfix.patterns.export_codes import BY_CODE

PY_FRAME = re.compile(r'File "([^"]+)", line (\d+)')  # tracebacks, stack_trace, faulthandler
TS_FRAME = re.compile(r"^\s*(.*?)\((\d+)\): \S+\s*$", re.M)  # TorchScript sourceRange()
NOT_USER = ("site-packages", "dist-packages")
_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"])
_ONNXFIX = os.path.realpath(os.path.dirname(os.path.dirname(__file__)))  # onnxfix/, this file's grandparent


@dataclass(frozen=True)
class Location:
    path: str  # as found (absolute); displayed relative by the renderer
    line: int
    col: int = 1


@dataclass(frozen=True)
class StaticLink:
    code: str
    path: str
    line: int
    relation: str = "same-line"  # "same-line": the static finding is at the reported line;
    # "value-source": at the line where the data-dependent value the finding is about was read;
    # "same-file": the reported problem has no line of its own (crash, wrong numbers) or none
    # was found at it, and this static finding in the model's file is a likely cause
    fixable: bool = True  # the static finding carries a fix; else it only names the root line


@dataclass
class ExportFinding:
    code: str
    message: str
    location: Location
    exporter: str
    fixed_by: list[StaticLink] = field(default_factory=list)

    @property
    def name(self) -> str:
        return BY_CODE[self.code].name


def is_user_file(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    real = os.path.realpath(filename)
    if any(part in NOT_USER for part in Path(real).parts):
        return False
    return not real.startswith((_STDLIB + os.sep, _ONNXFIX + os.sep)) and os.path.isfile(real)


def innermost_user(frames: list[tuple[str, int]], innermost_first: bool = False) -> Location | None:
    # a helper a fix wrote is onnxfix's code: its caller's line is the user's (`_onnx_value_select`
    # falling back to the `if` fails where the rewritten `if` stands)
    users = [(f, n) for f, n in frames if is_user_file(f) and not in_written_helper(f, int(n))]
    if not users:
        return None
    path, line = users[0] if innermost_first else users[-1]
    return Location(os.path.realpath(path), int(line))


def in_written_helper(filename: str, line: int) -> bool:
    """The line is inside a module-level `def _onnx_*` a fix wrote into the file."""
    path = os.path.realpath(filename)
    try:
        version = os.stat(path).st_mtime_ns
    except OSError:
        return False
    return any(start <= line <= end for start, end in _helper_spans(path, version))


@lru_cache(maxsize=64)
def _helper_spans(path: str, version: int) -> tuple[tuple[int, int], ...]:
    """The helpers' line spans in the file as it is at ``version`` (its mtime: --fix rewrites it)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple((node.lineno, node.end_lineno) for node in tree.body
                 if isinstance(node, ast.FunctionDef) and node.name.startswith("_onnx_"))


def line_in_original(original: str, fixed: str):
    """A function from a line of ``fixed`` (a fixed copy of ``original``) to the line of ``original``
    it stands for: the same line where the fixes left it, the edited line itself where a fix changed
    it, the line before where a fix inserted lines (a helper). A finding of an export of a copy that
    was not written must point where the user's file has it."""
    matcher = difflib.SequenceMatcher(None, original.splitlines(), fixed.splitlines(), autojunk=False)
    spans = matcher.get_opcodes()
    last = max(len(original.splitlines()), 1)

    def back(line: int) -> int:
        at = line - 1
        for tag, i1, i2, j1, j2 in spans:
            if j1 <= at < j2:
                if tag == "equal":
                    return i1 + (at - j1) + 1
                if tag == "replace":
                    return i1 + min(at - j1, i2 - i1 - 1) + 1
                return max(i1, 1)  # inserted: the line before the insertion
        return min(line, last)

    return back
