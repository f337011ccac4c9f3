"""Load what the user points at: ``path/to/file.py:callable``. This imports user code."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from typing import Any


class TargetError(Exception):
    pass


def split_spec(spec: str) -> tuple[Path, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name or len(path) == 1:  # "C:" drive letters have no name
        raise TargetError(f"expected path/to/file.py:callable, got {spec!r}")
    return Path(path), name


INTERNAL_PREFIX = "onnxfix_target_"  # a private module name: a target file never shadows a real module
LOADED: dict[str, str] = {}  # private module name -> the file's stem, the name users know it by
_INTERNAL_NAME = re.compile(INTERNAL_PREFIX + r"\d+")


def public_names(text: str) -> str:
    """``text`` (an error message) with the private module names of loaded targets replaced by
    their file's stem: `<class 'bakes_size.ChunkMean'>`, not `onnxfix_target_8123...`."""
    return _INTERNAL_NAME.sub(lambda m: LOADED.get(m.group(0), "<model file>"), text)


def load_module(path: Path):
    path = path.resolve()
    if not path.is_file():
        raise TargetError(f"{path}: no such file")
    name = f"{INTERNAL_PREFIX}{abs(hash(str(path)))}"
    LOADED[name] = path.stem
    if name in sys.modules:
        return sys.modules[name]
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # so that the model's sibling imports resolve
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_attr(path: Path, name: str) -> Any:
    module = load_module(path)
    try:
        return getattr(module, name)
    except AttributeError:
        raise TargetError(f"{path}: no attribute {name!r}") from None


def load_spec(spec: str) -> Any:
    return load_attr(*split_spec(spec))
