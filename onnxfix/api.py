"""The Python API: ``onnxfix.export``, ``onnxfix.check`` and ``onnxfix.fix`` on live objects.

The command line is built on the same functions (``run_static`` for check/--diff/--write, and
the exporter session for ``onnxfix export``). ``check`` and ``fix`` live here; ``export`` and
``ExportResult`` live with the export machinery (exporter/python_api.py: how a live model
reaches the export process) and are re-exported. Torch-free at import.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from onnxfix.config import EXPORTERS
from onnxfix.exporter.api_arguments import checked_codes, checked_exporters, source_paths
from onnxfix.exporter.python_api import ExportResult, export

if TYPE_CHECKING:
    from onnxfix.rewriter.rule import Finding
    from onnxfix.rewriter.runner import RunResult

__all__ = ["CheckResult", "ExportResult", "check", "export", "fix", "run_static"]


# ---- static: check and fix --------------------------------------------------------------------

@dataclass
class CheckResult:
    """Static findings (no code is imported or run). ``paths``: the files or folders checked."""

    findings: list[Finding]
    paths: list[Path]
    errors: list[str] = field(default_factory=list)  # "path:line:col: message" for unreadable files
    exporters: frozenset[str] = frozenset(EXPORTERS)  # the exporters checked for

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
    checked = result.settings.exporters if result.settings else frozenset(EXPORTERS)
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


def _static_options(exporters, select, ignore, unsafe_fixes) -> dict:
    return {
        "exporters": frozenset(checked_exporters(exporters)) if exporters is not None else None,
        "select": checked_codes(select, "select"), "ignore": checked_codes(ignore, "ignore"), "unsafe_fixes": unsafe_fixes,
    }


def _errors(result: RunResult) -> list[str]:
    errors = [f"{m}: no such file or folder" for m in result.missing]
    return errors + [f"{r.path}:{r.error[0]}:{r.error[1]}: {r.error[2]}" for r in result.errors]
