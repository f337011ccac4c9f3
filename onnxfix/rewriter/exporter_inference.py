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
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from onnxfix.rewriter.names import dotted_parts
from onnxfix.rewriter.source import read_regular_bytes

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


@functools.lru_cache(maxsize=1)  # a metadata scan of sys.path: once per process
def installed_torch_version() -> tuple[int, int] | None:
    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


def torch_default(version: tuple[int, int] | None) -> str:
    return "legacy" if version is not None and version < DYNAMO_DEFAULT_SINCE else "dynamo"


def export_calls(path: Path, display: str, default: str) -> list[ExportCall]:
    try:
        raw = read_regular_bytes(path)
        if EXPORT_MARK not in raw or not EXPORT_CALL_TEXT.search(raw):
            return []
        tree = ast.parse(raw)
    except (OSError, SyntaxError, ValueError, RecursionError):  # the check itself reports these files
        return []
    return [ExportCall(display, node.lineno, used) for node in ast.walk(tree)
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


def infer(files: list[tuple[Path, str]], version: tuple[int, int] | None) -> tuple[frozenset[str], str]:
    """(exporters, why) from the export calls in ``files`` ((path, display name)) and torch's
    default; ``why`` is empty when nothing points away from the plain default (dynamo)."""
    default = torch_default(version)
    calls = [call for path, display in files for call in export_calls(path, display, default)]
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
