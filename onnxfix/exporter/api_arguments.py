"""The Python API's arguments, checked the same way for its two halves (check/fix in
``onnxfix.api``, export in ``python_api``): paths or live objects and the user's source files
behind a live model, exporter names, rule codes. Torch-free.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any, Iterable, Union

from onnxfix.config import EXPORTERS
from onnxfix.exporter.locations import is_user_file
from onnxfix.patterns.selectors import rule_selectors

PathLike = Union[str, "os.PathLike[str]"]


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
    try:
        path = inspect.getsourcefile(cls)
    except (TypeError, OSError):
        return None
    return os.path.realpath(path) if path and is_user_file(path) else None


def checked_exporters(value) -> tuple[str, ...]:
    if value == "both":
        return EXPORTERS
    values = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, Iterable) else None
    if not values or any(v not in EXPORTERS for v in values):
        raise ValueError(f"exporters: expected 'dynamo', 'legacy', 'both' or a list of them, got {value!r}")
    return tuple(e for e in EXPORTERS if e in values)


def checked_codes(value, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    values = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise TypeError(f"{name}: expected rule codes or prefixes (strings), got {value!r}")
    return rule_selectors([v.strip() for v in values], name)  # a ValueError names a code no rule matches
