"""A light recorder of one eager run over the user's own files (run-time evidence for fixes).

``sys.settrace`` with a global function that looks each new frame's code object up once
(a dict hit afterwards) and traces only frames whose file is the user's (sourcemap.is_user_file:
not torch, not site-packages, not the standard library, not onnxfix). In those frames it notes
which lines ran and the type of every local at each line boundary and at return, and the type
of each returned value. While a library module runs (a forward outside the user's files), the
trace function is off altogether: user code that a library module calls back into is not
recorded (its fixes stay static).

Runs in a child process (evidence_worker.py): it imports torch and runs user code.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from types import CodeType, FrameType

import torch

from onnxfix.exporter.locations import _STDLIB, is_user_file
from onnxfix.exporter.targets import LOADED
from onnxfix.rewriter.evidence import FunctionEvidence, Value

_NONE = Value("none")
_SCALARS = {bool: Value("bool"), int: Value("int"), float: Value("float")}


@functools.lru_cache(maxsize=4096)
def _user_file(filename: str) -> bool:
    """is_user_file resolves symlinks and stats: once per file name per process, and not at
    all for the names that say they are a library's (no syscall for torch or transformers)."""
    if filename.startswith(("<", _STDLIB)) or "site-packages" in filename or "dist-packages" in filename:
        return False
    return is_user_file(filename)


def describe(value) -> Value:
    """The type of one value, as the static rules ask about it."""
    if isinstance(value, torch.Tensor):
        return Value("tensor", str(value.dtype).removeprefix("torch."), value.dim(), value.device.type,
                     unit=1 in value.shape)
    if value is None:
        return _NONE
    scalar = _SCALARS.get(type(value))
    if scalar is not None:
        return scalar
    kind = type(value)
    # a tuple, list or torch.Size of ints (`max_size = list(max_size)`): its items are ints; of tensors
    # (`rows, cols = mask.nonzero(as_tuple=True)` kept whole): its items are tensors
    items = isinstance(value, (tuple, list)) and 0 < len(value) <= 16
    whole = items and all(type(v) is int for v in value)
    tensors = items and all(isinstance(v, torch.Tensor) for v in value)
    # the model file's classes under its stem (it is loaded as a private module: exporter/targets.py)
    module = LOADED.get(kind.__module__, kind.__module__)
    return Value("other", dtype="int" if whole else "tensor" if tensors else "", type=f"{module}.{kind.__qualname__}")


def _forward_of(module):
    """What calling the module runs: a forward set on the instance (diffusers' export scripts'
    `checker.forward = checker.forward_onnx`, on a class with no forward of its own), else the class's."""
    return module.__dict__.get("forward") or type(module).forward


class _Record:
    __slots__ = ("name", "line", "file", "calls", "lines", "names", "returns", "entry", "watched")

    def __init__(self, code: CodeType):
        self.name, self.line, self.file = code.co_name, code.co_firstlineno, os.path.realpath(code.co_filename)
        self.calls = 0
        self.lines: set[int] = set()
        self.names: dict[str, set[Value]] = {}
        self.returns: dict[int, set[Value]] = {}
        self.entry: dict[str, set[Value]] = {}  # the parameters as passed
        self.watched: dict[int, tuple[str, ...]] | None = None  # line -> conditions to evaluate there

    def snapshot(self, frame: FrameType) -> None:
        names = self.names
        for name, value in frame.f_locals.items():
            seen = names.get(name)
            if seen is None:
                seen = names[name] = set()
            seen.add(describe(value))

    def passed(self, frame: FrameType) -> None:
        """The parameters as passed: the frame's locals when the call starts (its arguments)."""
        code = frame.f_code
        parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount
                                      + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
        local_values = frame.f_locals
        for name in parameters:
            if name in local_values:
                self.entry.setdefault(name, set()).add(describe(local_values[name]))

    def evidence(self) -> FunctionEvidence:
        return FunctionEvidence(
            self.name, self.line, self.calls, frozenset(self.lines),
            {n: frozenset(v) for n, v in self.names.items()},
            {line: frozenset(v) for line, v in self.returns.items()},
            {n: frozenset(v) for n, v in self.entry.items()},
        )


class Recorder:
    """``with Recorder() as r: model(*args)``; then ``r.by_file()``.

    ``watch``: file -> line -> conditions (Python expressions in that line's names, the checks
    torch.export suggested there: exporter/suggested_checks.py), each evaluated whenever the
    line is about to run; ``held`` then says, per (file, line, condition), whether it was true
    every time."""

    def __init__(self, watch: dict[str, dict[int, tuple[str, ...]]] | None = None):
        self._records: dict[CodeType, _Record | None] = {}  # None: not the user's code
        self._watch = {os.path.realpath(f): lines for f, lines in (watch or {}).items()}
        self.held: dict[tuple[str, int, str], bool] = {}

    def _global(self, frame: FrameType, event: str, arg):
        code = frame.f_code
        record = self._records.get(code, False)
        if record is False:
            record = self._records[code] = _Record(code) if _user_file(code.co_filename) else None
            if record is not None:
                record.watched = self._watch.get(record.file)
        if record is None:
            return None
        record.calls += 1
        record.snapshot(frame)  # the parameters as passed
        record.passed(frame)

        def local(frame: FrameType, event: str, arg):
            if event == "line":
                record.lines.add(frame.f_lineno)
                record.snapshot(frame)
                if record.watched is not None and frame.f_lineno in record.watched:
                    self._evaluate(record, frame)
            elif event == "return":
                record.snapshot(frame)
                record.returns.setdefault(frame.f_lineno, set()).add(describe(arg))
            return local

        return local

    def _evaluate(self, record: _Record, frame: FrameType) -> None:
        """Each watched condition of the line about to run, in its frame's names (an error
        counts as not holding: the check would not be true there; so does a value other than a
        Python bool: torch._check refuses a tensor, `if t < 0:` on a 0-d tensor's value)."""
        for condition in record.watched[frame.f_lineno]:
            try:
                value = eval(condition, frame.f_globals, dict(frame.f_locals))  # noqa: S307 (torch's own or the user's text)
                value = value if isinstance(value, bool) else False
            except Exception:
                value = False
            key = (record.file, frame.f_lineno, condition)
            self.held[key] = self.held.get(key, True) and value

    # Tracing switched on slows every Python frame (CPython 3.11 de-specializes the eval loop
    # while a trace function is set), library frames too: a tiny GPT-2 ran 4x slower. So while
    # a library module (its forward outside the user's files: transformers, torch.nn) runs, the
    # trace function is off; the user frames keep their f_trace and get events again after.
    def _pre_hook(self, module, args):
        if not self._is_user(_forward_of(module)):
            self._library_depth += 1
            if self._library_depth == 1:
                sys.settrace(None)

    def _post_hook(self, module, args, output):
        if not self._is_user(_forward_of(module)):
            self._library_depth -= 1
            if self._library_depth == 0:
                sys.settrace(self._global)

    @staticmethod
    def _is_user(function) -> bool:
        """A forward in the user's files, also under decorators that keep `__wrapped__`
        (`@torch.no_grad()`, `@torch.inference_mode()`, `functools.wraps`: the wrapper's own code
        is torch's, and taking it for the forward's switched tracing off for the whole model)."""
        try:
            function = inspect.unwrap(function)
        except ValueError:  # a cycle of __wrapped__
            pass
        code = getattr(function, "__code__", None)
        return code is not None and _user_file(code.co_filename)

    def __enter__(self) -> "Recorder":
        from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

        self._library_depth = 0
        self._hooks = [register_module_forward_pre_hook(self._pre_hook), register_module_forward_hook(self._post_hook)]
        self._previous = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc) -> None:
        sys.settrace(self._previous)
        for hook in self._hooks:
            hook.remove()

    def by_file(self) -> dict[str, list[FunctionEvidence]]:
        found: dict[str, list[FunctionEvidence]] = {}
        for record in self._records.values():
            if record is not None and record.calls:
                found.setdefault(record.file, []).append(record.evidence())
        return found
