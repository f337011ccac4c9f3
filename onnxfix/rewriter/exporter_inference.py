"""Which exporters a project uses, when neither `[tool.onnxfix] exporters` nor `--exporters` says.

Two pieces of evidence, both read without importing torch:
- the export calls in the scanned files: `torch.onnx.export(..., dynamo=False)` is legacy,
  `dynamo=True` and `torch.onnx.dynamo_export` are dynamo, a non-literal `dynamo=` may be either,
  and a call without `dynamo=` takes torch's default;
- torch's default, from the installed package's metadata: `torch.onnx.export` uses the
  TorchScript (legacy) exporter before torch 2.9 and the dynamo one from 2.9 on.
Without either (no torch in the hook's environment, no export call), dynamo is assumed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from onnxfix.rewriter.cache import Cache, key_of
from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.source import read_regular_bytes
from onnxfix.rewriter.tree_walk import walk

DYNAMO_DEFAULT_SINCE = (2, 9)
EXPORT_MARK = b"onnx"  # files without it have no export call: not parsed
# exporters_of_call matches the dotted names `[torch.]onnx.export` / `onnx.dynamo_export` only:
# a file without that text has no export call (the many files that only mention ONNX or export
# something else are not parsed)
EXPORT_CALL_TEXT = re.compile(rb"onnx\s*\.\s*(?:dynamo_)?export\b")


@dataclass(frozen=True)
class ExportCall:
    path: str
    line: int
    exporters: frozenset[str]


@functools.lru_cache(maxsize=1)
def installed_torch_version() -> tuple[int, int] | None:
    """torch's version from its metadata folder name (`torch-2.13.0.dist-info`) on sys.path.
    Read from directory listings, not importlib.metadata: importing that and scanning every
    distribution cost a one-file check more time than the check itself (a pre-commit hook)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            match = _TORCH_METADATA.match(name)
            if match:
                return int(match[1]), int(match[2])
    return None


_TORCH_METADATA = re.compile(r"torch-(\d+)\.(\d+)\S*\.(?:dist|egg)-info$", re.IGNORECASE)


def torch_default(version: tuple[int, int] | None) -> str:
    return "legacy" if version is not None and version < DYNAMO_DEFAULT_SINCE else "dynamo"


def export_calls(path: Path, display: str, default: str, cache: Cache | None = None) -> list[ExportCall]:
    try:
        raw = read_regular_bytes(path)
    except OSError:  # the check itself reports these files
        return []
    if EXPORT_MARK not in raw or not EXPORT_CALL_TEXT.search(raw):
        return []
    key = key_of("export-calls", hashlib.blake2b(raw, digest_size=16).hexdigest(), default)
    found = cache.get(key) if cache is not None else None
    if found is None:  # a warm run re-reads the calls from the cache: parsing was most of its time
        found = _calls_in(raw, default)
        if cache is not None:
            cache.put(key, found)
    return [ExportCall(display, line, frozenset(used)) for line, used in found]


def _calls_in(raw: bytes, default: str) -> list[tuple[int, list[str]]]:
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError, RecursionError):  # the check itself reports these files
        return []
    return [(node.lineno, sorted(used)) for node in walk(tree)
            if isinstance(node, ast.Call) and (used := exporters_of_call(node, default))]


def exporters_of_call(call: ast.Call, default: str, name: str | None = None) -> frozenset[str]:
    """The exporters a `torch.onnx.export` / `dynamo_export` call runs; empty for any other call.
    ``name``: the call's resolved qualified name, when the caller knows it (aliases)."""
    name = name or ".".join(dotted_parts(call.func) or ())
    if name in ("torch.onnx.dynamo_export", "onnx.dynamo_export"):
        return frozenset({"dynamo"})
    if name not in ("torch.onnx.export", "onnx.export"):
        return frozenset()
    flag = next((k.value for k in call.keywords if k.arg == "dynamo"), None)
    if flag is None:
        return frozenset({default})
    if isinstance(flag, ast.Constant) and isinstance(flag.value, bool):
        return frozenset({"dynamo" if flag.value else "legacy"})
    return frozenset({"dynamo", "legacy"})  # decided at run time: either may run


def infer(files: list[tuple[Path, str]], version: tuple[int, int] | None,
          cache: Cache | None = None) -> tuple[frozenset[str], str]:
    """(exporters, why) from the export calls in ``files`` ((path, display name)) and torch's
    default; ``why`` is empty when nothing points away from the plain default (dynamo)."""
    default = torch_default(version)
    calls = [call for path, display in files for call in export_calls(path, display, default, cache)]
    torch_text = f"torch {version[0]}.{version[1]}" if version else "torch"  # None only with dynamo
    if not calls:
        if default == "dynamo":
            return frozenset({"dynamo"}), ""
        return frozenset({default}), f"the default of torch.onnx.export in {torch_text}"
    exporters = frozenset().union(*(call.exporters for call in calls))
    first = calls[0]
    where = f"{first.path}:{first.line}" + (f" and {len(calls) - 1} more" if len(calls) > 1 else "")
    if exporters == {"dynamo"} and default == "dynamo":
        return exporters, ""
    return exporters, f"as the export call{'s' if len(calls) > 1 else ''} at {where} use{'' if len(calls) > 1 else 's'}"
