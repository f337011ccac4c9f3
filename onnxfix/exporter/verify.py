"""Export a model with one exporter and check it against eager PyTorch in onnxruntime.

Imports torch: only `onnxfix export` and the tests use this module. Run it through
``isolate.run_isolated`` so that an exporter segfault is a result, not a crash of onnxfix.
"""

from __future__ import annotations

import inspect
import tempfile
import traceback
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

OK, SILENTLY_WRONG, ORT_FAILS, EXPORT_FAILS, CRASH, TIMEOUT = (
    "OK", "SILENTLY-WRONG", "ORT-FAILS", "EXPORT-FAILS", "CRASH", "TIMEOUT",
)


@dataclass
class ProbeResult:
    probe: str  # "export inputs", "probe 1 (other values)", ...
    max_abs: float | None = None
    max_rel: float | None = None
    ok: bool = True
    note: str = ""


@dataclass
class Verdict:
    exporter: str
    verdict: str
    error: str = ""
    failing_probe: str = ""
    probes: list[ProbeResult] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)  # {"category", "message", "filename", "lineno"}
    op_histogram: dict[str, int] = field(default_factory=dict)
    onnx_path: str = ""

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Verdict":
        probes = [ProbeResult(**p) for p in data.pop("probes", [])]
        return cls(probes=probes, **data)


@dataclass
class Probe:
    name: str
    args: tuple


def flatten(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in flatten(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in flatten(item)]
    return []


def input_names(model: torch.nn.Module, count: int) -> list[str]:
    params = list(inspect.signature(model.forward).parameters)
    return params[:count] if len(params) >= count else [f"input_{i}" for i in range(count)]


def export_model(
    model: torch.nn.Module,
    args: tuple,
    exporter: str,
    path: Path,
    dynamic: dict[int, dict[int, str]] | None = None,
    opset: int | None = None,
) -> None:
    """dynamic: {input index: {dim: name}}, used for both exporters' dynamic-shape specs."""
    names = input_names(model, len(args))
    dynamic = dynamic or {}
    if exporter == "legacy":
        axes = {names[i]: dims for i, dims in dynamic.items()}
        torch.onnx.export(
            model, args, str(path), dynamo=False, input_names=names,
            dynamic_axes=axes or None, opset_version=opset,
        )
        return
    shapes = None
    if dynamic:
        shapes = {names[i]: ({d: torch.export.Dim.DYNAMIC for d in dynamic[i]} if i in dynamic else None) for i in range(len(args))}
    program = torch.onnx.export(
        model, args, dynamo=True, verbose=False, dynamic_shapes=shapes, opset_version=opset,
    )
    program.save(str(path), external_data=False)


def run_onnx(path: Path, args: tuple, names: list[str]) -> list[np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    declared = [i.name for i in session.get_inputs()]
    feeds = {}
    for name, value in zip(names, args):
        if name in declared and isinstance(value, torch.Tensor):
            feeds[name] = value.detach().cpu().numpy()
    if len(feeds) < len(declared):  # names did not line up: feed tensors by position
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        feeds = {n: t.detach().cpu().numpy() for n, t in zip(declared, tensors)}
    return session.run(None, feeds)


def compare(expected: list[torch.Tensor], actual: list[np.ndarray], rtol: float = 1e-4) -> tuple[bool, float, float, str]:
    """(ok, max abs error, max rel error, note). Tolerance scales with the output's magnitude."""
    if len(expected) != len(actual):
        return False, float("inf"), float("inf"), f"{len(actual)} outputs, expected {len(expected)}"
    worst_abs = worst_rel = 0.0
    for index, (ref, got) in enumerate(zip(expected, actual)):
        ref = ref.detach().cpu().numpy()
        if ref.shape != got.shape:
            return False, float("inf"), float("inf"), f"output {index}: shape {got.shape}, expected {ref.shape}"
        if ref.size == 0:
            continue
        ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
        both_nan = np.isnan(ref64) & np.isnan(got64)
        same_inf = np.isinf(ref64) & (ref64 == got64)
        diff = np.where(both_nan | same_inf, 0.0, np.abs(ref64 - got64))
        diff = np.nan_to_num(diff, nan=np.inf)
        scale = float(np.max(np.abs(np.nan_to_num(ref64, nan=0.0, posinf=0.0, neginf=0.0)))) or 1.0
        worst_abs = max(worst_abs, float(diff.max()))
        worst_rel = max(worst_rel, float(diff.max()) / scale)
    tolerance_ok = worst_abs <= rtol * max(1.0, _scale(expected)) + 1e-5
    return tolerance_ok, worst_abs, worst_rel, ""


def _scale(tensors: list[torch.Tensor]) -> float:
    values = [float(t.detach().abs().float().nan_to_num(0, 0, 0).max()) for t in tensors if t.numel()]
    return max(values, default=1.0)


def eager(model: torch.nn.Module, args: tuple) -> list[torch.Tensor]:
    cloned = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
    with torch.no_grad():
        return flatten(model(*cloned))


def verify(
    make_model: Callable[[], torch.nn.Module],
    args: tuple,
    probes: list[Probe],
    exporter: str,
    dynamic: dict[int, dict[int, str]] | None = None,
    opset: int | None = None,
    out: Path | None = None,
) -> Verdict:
    """Export once, then compare onnxruntime with eager on the export inputs and each probe."""
    torch.manual_seed(0)
    model = make_model().eval()
    names = input_names(model, len(args))
    path = out or Path(tempfile.mkdtemp(prefix="onnxfix-")) / "model.onnx"
    verdict = Verdict(exporter=exporter, verdict=OK, onnx_path=str(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            export_model(model, args, exporter, path, dynamic, opset)
        except Exception as exc:  # the exporter's own error is the result
            verdict.verdict = EXPORT_FAILS
            verdict.error = _describe(exc)
    verdict.warnings = [
        {"category": w.category.__name__, "message": str(w.message)[:500], "filename": w.filename, "lineno": w.lineno}
        for w in caught
        if not issubclass(w.category, DeprecationWarning)
    ]
    if verdict.verdict != OK:
        return verdict
    verdict.op_histogram = _op_histogram(path)
    for probe in [Probe("export inputs", args), *probes]:
        result = _check_probe(model, path, probe, names)
        verdict.probes.append(result)
        if not result.ok and verdict.verdict == OK:
            verdict.verdict = ORT_FAILS if result.note.startswith("onnxruntime") else SILENTLY_WRONG
            verdict.failing_probe = probe.name
    return verdict


def _check_probe(model, path: Path, probe: Probe, names: list[str]) -> ProbeResult:
    try:
        expected = eager(model, probe.args)
    except Exception as exc:
        return ProbeResult(probe.name, ok=True, note=f"skipped: eager rejects this probe ({_describe(exc)[:120]})")
    try:
        actual = run_onnx(path, probe.args, names)
    except Exception as exc:
        return ProbeResult(probe.name, ok=False, note=f"onnxruntime: {_describe(exc)[:300]}")
    ok, max_abs, max_rel, note = compare(expected, actual)
    return ProbeResult(probe.name, max_abs=max_abs, max_rel=max_rel, ok=ok, note=note)


def _op_histogram(path: Path) -> dict[str, int]:
    import onnx

    counts: dict[str, int] = {}
    for node in onnx.load(str(path)).graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


def _describe(exc: BaseException) -> str:
    chain = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 4:
        chain.append(f"{type(current).__name__}: {str(current).strip()[:2000]}")
        current = current.__cause__ or current.__context__
    return "\n  <- ".join(chain)


def format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc))
