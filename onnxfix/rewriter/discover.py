"""Which files to check: *.py under the given folders, minus excludes."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from onnxfix.config import Settings


@dataclass
class Discovered:
    files: list[Path]
    missing: list[Path]  # paths given on the command line that do not exist


def discover(paths: list[Path], settings: Settings, force_exclude: bool = False) -> Discovered:
    files: list[Path] = []
    missing: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if not path.exists():
            missing.append(path)
            continue
        if path.is_dir():
            candidates = _walk(path, settings)
        elif force_exclude and settings.is_excluded(path):
            candidates = []
        else:
            candidates = [path]  # a file named explicitly is checked whatever its name
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                files.append(candidate)
    return Discovered(sorted(files), missing)


def _walk(root: Path, settings: Settings):
    # followlinks=False: a symlink loop in the tree cannot trap the walk.
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not settings.is_excluded(base / d))
        for name in sorted(names):
            candidate = base / name
            if name.endswith(".py") and not settings.is_excluded(candidate) and candidate.is_file():
                yield candidate
