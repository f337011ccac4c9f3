"""Read the measured operator catalog (``onnxfix/data/operator_catalog.json``) without torch.

The catalog is written by ``python -m onnxfix.exporter.catalog_probe`` on the installed torch:
per operator variant and exporter, the verdict at the default opset, the opsets tried and the
lowest that worked. Rules use it to decide which exporters an operator breaks, and the opset
advice rule to know the lowest opset an operator needs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

OK = "OK"
CASE_ERROR = "CASE-ERROR"  # the probe's own case is wrong: says nothing about the exporter


@dataclass(frozen=True)
class Measurement:
    case: str
    op: str
    exporter: str
    verdict: str
    error: str
    lowest_opset: int | None
    failed_below: bool  # an opset below lowest_opset was tried and failed


@lru_cache(maxsize=1)
def load() -> dict:
    try:
        text = resources.files("onnxfix").joinpath("data/operator_catalog.json").read_text(encoding="utf-8")
    except FileNotFoundError:
        return {"ops": {}}
    return json.loads(text)


def torch_version() -> str:
    return load().get("versions", {}).get("torch", "unknown")


@lru_cache(maxsize=None)
def measurements(case: str) -> tuple[Measurement, ...]:
    entry = load()["ops"].get(case)
    if not entry:
        return ()
    return tuple(
        Measurement(case, entry["op"], exporter, record.get("verdict", ""), record.get("error", ""),
                    record.get("lowest_opset"), "lowest_opset_error" in record)
        for exporter, record in sorted(entry.get("exporters", {}).items())
    )


@lru_cache(maxsize=1)
def cases_by_op() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {}
    for case, entry in load()["ops"].items():
        found.setdefault(entry["op"], []).append(case)
    return {op: tuple(cases) for op, cases in found.items()}


def failures(cases: tuple[str, ...]) -> dict[str, Measurement]:
    """{exporter: the first failing measurement} over ``cases``."""
    failed: dict[str, Measurement] = {}
    for case in cases:
        for m in measurements(case):
            if m.verdict not in (OK, CASE_ERROR) and m.exporter not in failed:
                failed[m.exporter] = m
    return failed


def fails_always(op: str) -> dict[str, Measurement]:
    """{exporter: a failing measurement} for exporters where EVERY measured variant of ``op``
    fails (so the call fails whatever its arguments)."""
    cases = cases_by_op().get(op, ())
    result: dict[str, Measurement] = {}
    by_exporter: dict[str, list[Measurement]] = {}
    for case in cases:
        for m in measurements(case):
            by_exporter.setdefault(m.exporter, []).append(m)
    for exporter, items in by_exporter.items():
        if items and all(m.verdict not in (OK, CASE_ERROR) for m in items):
            result[exporter] = items[0]
    return result


def required_opset(op: str, exporter: str) -> tuple[int, str] | None:
    """(lowest opset that works, case) when some variant of ``op`` was measured to FAIL below
    that opset with ``exporter`` (the highest such requirement over the variants)."""
    needed = None
    for case in cases_by_op().get(op, ()):
        for m in measurements(case):
            if m.exporter == exporter and m.verdict == OK and m.failed_below and m.lowest_opset:
                if needed is None or m.lowest_opset > needed[0]:
                    needed = (m.lowest_opset, case)
    return needed


_ONNX_FUNCTION = re.compile(r"No ONNX function found for <OpOverload\(op='([^']+)', overload='([^']+)'\)>")
_SYMBOLIC = re.compile(r"Exporting the operator '([^']+)' to ONNX opset version (\d+) is not supported")


_ORT_NODE = re.compile(r"Non-zero status code returned while running (\w+) node")


def short_error(m: Measurement) -> str:
    """The measured failure in a few words: which ATen op has no translation, or the message."""
    text = m.error.split(" <- ")[-1]
    found = _ONNX_FUNCTION.search(text)
    if found:
        return f"no ONNX translation for {found.group(1)}.{found.group(2)}"
    found = _SYMBOLIC.search(text)
    if found:
        return f"no symbolic for {found.group(1)} at opset {found.group(2)}"
    found = _ORT_NODE.search(text)
    if found:
        return f"onnxruntime fails in its {found.group(1)} node"
    text = text.split(": ", 1)[-1] if text.startswith(("SymbolicValueError", "UnsupportedOperatorError", "OnnxExporterError")) else text
    return text if len(text) <= 100 else text[:97] + "..."


def describe(failed: dict[str, Measurement]) -> str:
    """'dynamo: EXPORT-FAILS, no ONNX translation for ...; legacy: SILENTLY-WRONG, ...'"""
    return "; ".join(f"{exporter}: {m.verdict}, {short_error(m)}" for exporter, m in sorted(failed.items()))
