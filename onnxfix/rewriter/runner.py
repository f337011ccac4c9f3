"""Run the checker over what the user named: discover files, check or fix each, collect."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from onnxfix.config import Settings, load_settings, with_overrides
from onnxfix.patterns import all_rules
from onnxfix.rewriter.discover import discover
from onnxfix.rewriter.engine import RuleSet, process_file
from onnxfix.rewriter.rule import FileResult, Finding


@dataclass
class RunResult:
    files: list[FileResult] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    settings: Settings | None = None

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.files for f in r.findings), key=lambda f: f.sort_key)

    @property
    def errors(self) -> list[FileResult]:
        return [r for r in self.files if r.error]

    @property
    def changed(self) -> list[FileResult]:
        return [r for r in self.files if r.fixed_text is not None]


def display_path(path: Path) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path.resolve()) if relative.startswith("..") else relative


def run(paths: list[Path], mode: str = "check", force_exclude: bool = False, **overrides) -> RunResult:
    """mode: check | diff | write. ``overrides`` are command-line settings (None = config)."""
    result = RunResult()
    ruleset = RuleSet(list(all_rules()))
    for path in paths or [Path(".")]:
        settings = with_overrides(load_settings(path if path.exists() else Path.cwd()), **overrides)
        result.settings = result.settings or settings
        found = discover([path], settings, force_exclude)
        result.missing.extend(found.missing)
        for file in found.files:
            result.files.append(process_file(file, display_path(file), settings, ruleset, mode))
    return result
