"""Values the exporter cannot flatten: a transformers KV cache returned by ``forward``.

torch.export flattens inputs and outputs with pytree; a type it does not know stops the capture
("Found <class 'transformers.cache_utils.DynamicCache'> in output, which is not a known type").
Transformers models return their cache when ``config.use_cache`` is on (the default). The
finding (ONX916) goes to the line of the factory that builds the config or the model, and
``onnxfix export --fix`` can turn the cache off there: ``use_cache=False`` only drops the cache
from the outputs; the logits are computed the same way.

Torch-free: reads the error text and the factory's syntax tree.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

from onnxfix.exporter.locations import ExportFinding, Location
from onnxfix.exporter.result import Verdict

NOT_FLATTENABLE = (
    re.compile(r"Found <class '(?P<kind>[\w.]+)'> in (?P<where>output|input), which is not a known type"),  # dynamo
    # legacy (TorchScript) says "input" for outputs too
    re.compile(r"Only tuples, lists and Variables are supported as JIT inputs/outputs.*?unsupported type: (?P<kind>[\w.]+)", re.S),
)


@dataclass(frozen=True)
class CacheSite:
    line: int
    col: int
    start: tuple[int, int]  # where the edit goes (line, col), 1-based line, 0-based col
    end: tuple[int, int]
    insert: str  # the replacement text of start..end


def unflattenable(error: str) -> tuple[str, str] | None:
    """(type, "output" | "input" | "value") of a value the exporter could not flatten."""
    for pattern in NOT_FLATTENABLE:
        match = pattern.search(error)
        if match:
            return match.group("kind"), match.groupdict().get("where") or "value"
    return None


def refine(findings: list[ExportFinding], verdict: Verdict, model_path: Path, factory: str) -> None:
    """The capture error becomes ONX916 at the factory's config/model call, with the fix; text in
    the output of a failed export is ONX917 at forward's return."""
    _text_output(findings, verdict)
    found = unflattenable(verdict.error) if verdict.verdict == "EXPORT-FAILS" else None
    if not found:
        return
    kind, where = found
    site = cache_site(_read(model_path), factory) if "Cache" in kind else None
    for finding in findings:
        if finding.code in ("ONX910", "ONX922"):
            finding.code, finding.message = "ONX916", _message(kind, where, site)
            if site:
                finding.location = Location(os.path.realpath(model_path), site.line, site.col)


def _text_output(findings: list[ExportFinding], verdict: Verdict) -> None:
    """CnOCR's CTC decoder returning `[(word, prob), ...]`: no exporter can return text, and no
    rewrite of the model can (the root, named at the line that returns it)."""
    if verdict.ok or not verdict.text_outputs or not verdict.text_output_site:
        return
    path, line = verdict.text_output_site
    message = (f"forward returns text ({', '.join(verdict.text_outputs)}): an ONNX model's outputs are tensors, so "
               "no exporter can return it, and no faithful rewrite of the model exists: return the tensors the text "
               "is decoded from (indices, scores) and decode them after the model")
    findings.insert(0, ExportFinding("ONX917", message, Location(path, line), verdict.exporter))


def _message(kind: str, where: str, site: CacheSite | None) -> str:
    short = kind.rsplit(".", 1)[-1]
    named = f"{short} ({kind})" if short != kind else kind
    exporter = "the legacy exporter" if where == "value" else "torch.export"
    if where != "input" and "Cache" in kind:
        text = (f"forward returns a {named}, which {exporter} cannot flatten: the model returns its KV "
                "cache because config.use_cache is on; export with use_cache=False")
        text += " (`onnxfix export --fix` sets it here)" if site else " (set it where the config is built)"
        return text + ", or register the type as a pytree node (torch.utils._pytree.register_pytree_node)"
    subject = {"output": "forward returns", "input": "an input is"}.get(where, "an input or output is")
    return (f"{subject} a {named}, which {exporter} "
            "cannot flatten: pass or return its tensors (tuples, lists, dicts), or register the type as a pytree node "
            "(torch.utils._pytree.register_pytree_node)")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


# ---- where to turn the cache off, and the edit ---------------------------------------------

def cache_site(text: str, factory: str) -> CacheSite | None:
    """In the factory (else the module): a call with ``use_cache=``, else a ``*Config(...)`` call,
    else ``*.from_pretrained(...)``/``from_config(...)``; or ``config.use_cache = ...``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    scopes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == factory] + [tree]
    for scope in scopes:
        for rank in range(4):
            for node in ast.walk(scope):
                site = _site(node, rank)
                if site:
                    return site
    return None


def _site(node: ast.AST, rank: int) -> CacheSite | None:
    if rank == 0 and isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "use_cache" for t in node.targets):
        return _replace(node, node.value)
    if not isinstance(node, ast.Call):
        return None
    keyword = next((k for k in node.keywords if k.arg == "use_cache"), None)
    if rank == 1 and keyword:
        return _replace(node, keyword.value)
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if (rank == 2 and name.endswith("Config")) or (rank == 3 and name in ("from_pretrained", "from_config")):
        return _append(node)
    return None


def _replace(node: ast.AST, value: ast.expr) -> CacheSite:
    return CacheSite(node.lineno, node.col_offset + 1, (value.lineno, value.col_offset),
                     (value.end_lineno, value.end_col_offset), "False")


def _append(call: ast.Call) -> CacheSite:
    last = max([*call.args, *call.keywords], key=lambda n: (n.end_lineno, n.end_col_offset), default=None)
    if last is None:  # f() -> f(use_cache=False)
        at = (call.end_lineno, call.end_col_offset - 1)
        return CacheSite(call.lineno, call.col_offset + 1, at, at, "use_cache=False")
    at = (last.end_lineno, last.end_col_offset)
    return CacheSite(call.lineno, call.col_offset + 1, at, at, ", use_cache=False")


def turn_cache_off(text: str, factory: str) -> tuple[str, int] | None:
    """The text with the cache turned off at the factory's site, and the site's line."""
    site = cache_site(text, factory)
    if site is None:
        return None
    lines = text.splitlines(keepends=True)
    start = sum(len(l) for l in lines[:site.start[0] - 1]) + _offset(lines[site.start[0] - 1], site.start[1])
    end = sum(len(l) for l in lines[:site.end[0] - 1]) + _offset(lines[site.end[0] - 1], site.end[1])
    return text[:start] + site.insert + text[end:], site.line


def _offset(line: str, col: int) -> int:
    """ast columns count UTF-8 bytes."""
    return len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def needs_cache_off(results) -> bool:
    """Some export failed on a returned cache (ExporterResult list)."""
    return any(f.code == "ONX916" and "use_cache" in f.message for r in results for f in r.findings)

