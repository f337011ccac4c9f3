"""The op_db probe's verdicts, read without torch.

``python bench/opdb_probe.py`` exports every entry of torch's OpInfo database, per argument pattern
of its sample inputs, with both exporters, and stores per pattern the verdict, the failure class
and the ATen overloads torch.export traced: ``onnxfix/data/opdb_verdicts.json`` (docs/opdb.md shows
it). From it the probe also writes ``onnxfix/data/opdb_failing.json``, the small index the rules
load (the static path stays fast): the spellings (`torch.x`, `torch.linalg.x`,
`torch.nn.functional.x`, `Tensor.x`, aliases) whose every probed pattern fails
(of every dtype) under an exporter, with their siblings (the other spellings of the same entries).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

EXPORTERS = ("dynamo", "legacy")
PASSING = ("OK", "EXPORTS")  # EXPORTS: a random op that exports and runs (values not comparable)
UNKNOWN = ("CRASH", "TIMEOUT")  # the probe's child died or hung: no verdict on the op


@dataclass(frozen=True)
class Failure:
    exporter: str
    failing: int  # patterns that fail
    probed: int  # patterns probed
    error: str  # the first failing pattern's verdict and error, in a few words
    pattern: str  # that pattern (`T2, 0, T2:int64, T2, 'mean'`)


def _read(name: str) -> dict:
    try:
        return json.loads(resources.files("onnxfix").joinpath(f"data/{name}").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


@lru_cache(maxsize=1)
def verdicts() -> dict:
    """The whole probe: {"torch", "onnxruntime", "opset", "entries", "ops": {key: entry}}."""
    return _read("opdb_verdicts.json") or {"ops": {}}


@lru_cache(maxsize=1)
def failing_index() -> dict:
    return _read("opdb_failing.json") or {"spellings": {}}


def torch_version() -> str:
    return failing_index().get("torch", "unknown")


def failing_spellings() -> tuple[str, ...]:
    return tuple(sorted(failing_index()["spellings"]))


def fails_always(spelling: str) -> dict[str, Failure]:
    """{exporter: Failure} for the exporters under which every probed pattern (every dtype) of
    every entry the spelling reaches fails: the call fails whatever its arguments (as probed)."""
    entry = failing_index()["spellings"].get(spelling, {})
    return {e: Failure(e, **f) for e, f in entry.get("exporters", {}).items()}


@lru_cache(maxsize=1)
def tensor_first_functions() -> frozenset[str]:
    """The `torch.x` / `torch.nn.functional.x` / `torch.linalg.x` ... spellings whose every probed
    sample takes a tensor as its first argument (not `torch.cat`'s list, `torch.zeros`' sizes or
    `torch.arange`'s numbers): eager raises when another value comes first."""
    return frozenset(failing_index().get("tensor_first", ()))


def siblings(spelling: str) -> tuple[str, ...]:
    """The other spellings of the entries ``spelling`` reaches (`Tensor.cumprod_` -> `torch.cumprod`)."""
    return tuple(failing_index()["spellings"].get(spelling, {}).get("siblings", ()))


def describe(failed: dict[str, Failure]) -> str:
    """'dynamo: 4/4 probed patterns fail (EXPORT-FAILS, no ONNX function for aten.x.default); legacy: ...'"""
    return "; ".join(f"{e}: {f.failing}/{f.probed} probed patterns fail ({f.error})" for e, f in sorted(failed.items()))


# ---- building the index from the whole probe (bench/opdb_doc.py, the tests) ----------------------

def index_of(data: dict) -> dict:
    """{"torch", "spellings": {spelling: {"exporters": {e: Failure fields}, "siblings": [...]}}}:
    the spellings whose every probed pattern, of every dtype, fails under an exporter (a static
    call's dtype is rarely known: `Tensor.all` fails on float32 inputs under legacy, not on the
    bool masks it is mostly called on)."""
    by_spelling: dict[str, list[str]] = {}
    for key, entry in sorted(data["ops"].items()):  # sorted: the same index from the stored file
        for spelling in entry.get("spellings", ()):
            by_spelling.setdefault(spelling, []).append(key)
    spellings = {}
    for spelling, keys in sorted(by_spelling.items()):
        failed = {}
        for exporter in EXPORTERS:
            patterns = [p for k in keys for p in data["ops"][k]["patterns"] if p[exporter]["verdict"] not in UNKNOWN]
            failing = [p for p in patterns if p[exporter]["verdict"] not in PASSING]
            if patterns and len(failing) == len(patterns):
                first = failing[0]
                failed[exporter] = {"failing": len(failing), "probed": len(patterns), "pattern": first["pattern"],
                                    "error": f"{first[exporter]['verdict']}, {first[exporter]['error']}"}
        if failed:
            others = sorted({s for k in keys for s in data["ops"][k].get("spellings", ())} - {spelling})
            spellings[spelling] = {"exporters": failed, "siblings": others}
    return {"torch": data.get("torch", "unknown"), "spellings": spellings, "tensor_first": _tensor_first(data)}


def _tensor_first(data: dict) -> list[str]:
    """Function spellings (not `Tensor.x` methods) whose every probed pattern starts with a tensor
    (`T2`, `T3:int64`; a list or tuple of tensors is `[T2, ...]`, sizes `(5, 5)`, numbers `2`) and
    that eager refuses a number or a list first for."""
    firsts: dict[str, set[bool]] = {}
    number_first = set(data.get("number_first", ()))  # `torch.pow(2, t)`: measured by bench/opdb_doc.py
    for entry in data["ops"].values():
        for spelling in entry.get("spellings", ()):
            if spelling.startswith("Tensor.") or spelling in number_first:
                continue
            for p in entry["patterns"]:
                firsts.setdefault(spelling, set()).add(re.match(r"T\d", p["pattern"]) is not None)
    return sorted(s for s, starts in firsts.items() if starts == {True})
