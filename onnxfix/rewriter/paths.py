"""How a file is shown in reports: relative to the working directory when below it."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path) -> str:
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path.resolve()) if relative.startswith("..") else relative


def shown(identity: str) -> str:
    """A file identity (absolute for files on disk, the given name for text checks) as shown."""
    return display_path(Path(identity)) if os.path.isabs(identity) else identity
