"""How a file is shown in reports: relative to the working directory when below it."""

from __future__ import annotations

import functools
import os
from pathlib import Path


def display_path(path: Path) -> str:
    return _display(os.fspath(path), os.getcwd())


@functools.lru_cache(maxsize=1 << 16)  # asked several times per file per scan; resolve() is syscalls
def _display(path: str, cwd: str) -> str:
    try:
        relative = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        return path
    return str(Path(path).resolve()) if relative.startswith("..") else relative


def shown(identity: str) -> str:
    """A file identity (absolute for files on disk, the given name for text checks) as shown."""
    return _display(identity, os.getcwd()) if os.path.isabs(identity) else identity
