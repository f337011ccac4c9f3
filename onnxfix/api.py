"""The Python API: ``onnxfix.export``, ``onnxfix.check`` and ``onnxfix.fix`` on live objects.

The command line is built on the same functions (``run_static`` for check/--diff/--write, and
the exporter session for ``onnxfix export``). Torch-free at import: ``export`` receives a live
module, so torch is already loaded when it runs; the exports themselves run in child processes.

How a live model reaches the export process: it is pickled (``torch.save``) with its inputs.
When pickling fails (a lambda or a lock in an attribute, ...), the child re-creates it as
``type(model)()`` and loads its ``state_dict()``: the class must then be importable by module
name and take no arguments. A class defined in the running script (``__main__``) is found by
running that script in the child as ``__mp_main__``, as multiprocessing's spawn does: keep the
script's work under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Union

if TYPE_CHECKING:
    from onnxfix.rewriter.rule import Finding
    from onnxfix.rewriter.runner import RunResult

__all__ = ["CheckResult", "ExportResult", "check", "export", "fix", "run_static"]

PathLike = Union[str, "os.PathLike[str]"]
EXPORTER_NAMES = ("dynamo", "legacy")
TRANSPORT_PICKLE, TRANSPORT_STATE_DICT = "pickle", "state_dict"


# ---- static: check and fix --------------------------------------------------------------------

@dataclass
class CheckResult:
    """Static findings (no code is imported or run). ``paths``: the files or folders checked."""

    findings: list[Finding]
    paths: list[Path]
    errors: list[str] = field(default_factory=list)  # "path:line:col: message" for unreadable files
    exporters: frozenset[str] = frozenset(EXPORTER_NAMES)  # the exporters checked for

    @property
    def ok(self) -> bool:
        return not self.findings and not self.errors

    def __repr__(self) -> str:
        from onnxfix import output

        lines = [output.text_line(f, False) for f in self.findings] + [f"error: {e}" for e in self.errors]
        return "\n".join([*lines, output.summary(self.findings, False, self.exporters, errors=len(self.errors))])


def run_static(paths: list[Path], mode: str = "check", **options: Any) -> RunResult:
    """The static checker (``onnxfix check``): mode check | diff | write; options are
    ``runner.run``'s (select, ignore, exporters, unsafe_fixes, use_cache, jobs, ...)."""
    from onnxfix.rewriter.runner import run

    return run(paths, mode, **options)


def check(
    obj_or_path: Any, *, exporters: Iterable[str] | str | None = None, select: Iterable[str] | None = None,
    ignore: Iterable[str] | None = None,
) -> CheckResult:
    """Static findings for a module object or class (the files of its classes, found with
    ``inspect``), a file, a folder, or a list of them. Reads source only."""
    paths = source_paths(obj_or_path)
    result = run_static(paths, "check", use_cache=False, **_static_options(exporters, select, ignore, None))
    checked = result.settings.exporters if result.settings else frozenset(EXPORTER_NAMES)
    return CheckResult(result.findings, paths, _errors(result), frozenset(checked))


def fix(
    obj_or_path: Any, *, write: bool = False, unsafe_fixes: bool = False, exporters: Iterable[str] | str | None = None,
    select: Iterable[str] | None = None, ignore: Iterable[str] | None = None,
) -> str:
    """The static fixes as a unified diff ("" when none applies); ``write=True`` also applies them."""
    from onnxfix import output

    if not isinstance(write, bool) or not isinstance(unsafe_fixes, bool):
        raise TypeError(f"write and unsafe_fixes must be True or False, got {write!r}, {unsafe_fixes!r}")
    paths = source_paths(obj_or_path)
    options = _static_options(exporters, select, ignore, unsafe_fixes)
    result = run_static(paths, "write" if write else "diff", use_cache=False, **options)
    if result.errors or result.missing:
        raise ValueError("obj_or_path: " + "; ".join(_errors(result)))
    return "".join(output.unified_diff(c.path, c.original_text, c.fixed_text) for c in result.changed)


def source_paths(obj_or_path: Any) -> list[Path]:
    if isinstance(obj_or_path, (str, os.PathLike)):
        return [Path(obj_or_path)]
    if isinstance(obj_or_path, (list, tuple)) and obj_or_path and all(isinstance(p, (str, os.PathLike)) for p in obj_or_path):
        return [Path(p) for p in obj_or_path]
    classes = class_tree(obj_or_path)
    if not classes:
        raise TypeError(f"obj_or_path: expected an nn.Module, a class, a path or a list of paths, "
                        f"got {type(obj_or_path).__name__}")
    files = list(dict.fromkeys(f for f in (class_file(c) for c in classes) if f))
    if not files:
        raise ValueError(f"obj_or_path: no source file found for {classes[0].__qualname__} "
                         "(defined in a notebook cell or the interpreter?); pass a path instead")
    return [Path(f) for f in files]


def class_tree(obj: Any) -> list[type]:
    """The user's classes behind a module object: its own and its submodules' (torch's are
    dropped by class_file, which keeps user files only)."""
    if inspect.isclass(obj):
        return [obj]
    modules = getattr(obj, "modules", None)
    if not callable(modules) or not hasattr(obj, "state_dict"):
        return []
    return list(dict.fromkeys(type(m) for m in modules()))


def class_file(cls: type) -> str | None:
    from onnxfix.exporter.locations import is_user_file

    try:
        path = inspect.getsourcefile(cls)
    except (TypeError, OSError):
        return None
    return os.path.realpath(path) if path and is_user_file(path) else None


def _static_options(exporters, select, ignore, unsafe_fixes) -> dict:
    return {
        "exporters": frozenset(_exporters(exporters)) if exporters is not None else None,
        "select": _codes(select, "select"), "ignore": _codes(ignore, "ignore"), "unsafe_fixes": unsafe_fixes,
    }


def _codes(value, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    values = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise TypeError(f"{name}: expected rule codes or prefixes (strings), got {value!r}")
    from onnxfix.patterns.selectors import rule_selectors  # raises ValueError naming a code no rule matches

    return rule_selectors([v.strip() for v in values], name)


def _errors(result: RunResult) -> list[str]:
    errors = [f"{m}: no such file or folder" for m in result.missing]
    return errors + [f"{r.path}:{r.error[0]}:{r.error[1]}: {r.error[2]}" for r in result.errors]


def _exporters(value) -> tuple[str, ...]:
    if value == "both":
        return EXPORTER_NAMES
    values = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, Iterable) else None
    if not values or any(v not in EXPORTER_NAMES for v in values):
        raise ValueError(f"exporters: expected 'dynamo', 'legacy', 'both' or a list of them, got {value!r}")
    return tuple(e for e in EXPORTER_NAMES if e in values)


# The export half lives with the export machinery (it needs onnxfix.exporter); imported last, as
# it reads the helpers above.
from onnxfix.exporter.python_api import ExportResult, export  # noqa: E402
