"""Which files to check: *.py under the given folders, minus excludes."""

from __future__ import annotations

import errno
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


def missing_reason(path: Path) -> str:
    """Why a path named on the command line cannot be checked."""
    if path.is_symlink():
        try:
            os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return "symbolic link loop"
        return "broken symbolic link"
    return "no such file or directory"


def _walk(root: Path, settings: Settings):
    # followlinks=False: a symlink loop in the tree cannot trap the walk.
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder)
        dirs[:] = sorted(d for d in dirs if not settings.is_excluded(base / d))
        for name in sorted(names):
            candidate = base / name
            if name.endswith(".py") and not settings.is_excluded(candidate) and candidate.is_file():
                yield candidate
