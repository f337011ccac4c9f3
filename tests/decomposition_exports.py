"""Child process for tests/test_decompositions.py: export one module per decomposition with one
exporter and compare onnxruntime with eager PyTorch on inputs other than the export inputs
(other values, and another batch size where the batch dimension is dynamic).

    python tests/decomposition_exports.py dynamo|legacy [helper|decompose]

``helper``: forward calls the ``_onnx_*`` helper as a source fix would write it.
``decompose``: forward calls the ORIGINAL torch op (which fails to export) and the export runs
inside ``decomposition_context()``. Prints one JSON line per case.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import warnings
from pathlib import Path

import torch

from onnxfix.decompositions import load_function
from onnxfix.exporter import verify

NAN = float("nan")


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def ties(g, *shape):
    return torch.randint(-2, 3, shape, generator=g).float()


def with_nan(g, *shape):
    x = ties(g, *shape)
    x[..., 1] = NAN if x.shape[-1] > 1 else x[..., 1]
    return x


def well_conditioned(g, batch, n):
    return torch.randn(batch, n, n, generator=g) + n * torch.eye(n)


# key: (original expression, helper expression, inputs(g, batch) -> tuple, dynamic batch?)
CASES = {
    "linalg_inv": ("torch.linalg.inv(a)", "_onnx_linalg_inv(a)", lambda g, b: (well_conditioned(g, b, 4),), True),
    "linalg_solve": ("torch.linalg.solve(a, c)", "_onnx_linalg_solve(a, c)", lambda g, b: (well_conditioned(g, b, 3), randn(g, b, 3, 2)), True),
    "cumprod": ("torch.cumprod(a, 1)", "_onnx_cumprod(a, 1)", lambda g, b: (ties(g, b, 6),), True),
    "cummax": ("*torch.cummax(a, 1)", "*_onnx_cummax(a, 1)", lambda g, b: (with_nan(g, b, 6),), True),
    "cummin": ("a.cummin(1).indices", "_onnx_cummin(a, 1).indices", lambda g, b: (ties(g, b, 6),), True),
    "kthvalue": ("torch.kthvalue(a, 2, 1).values", "_onnx_kthvalue(a, 2, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "median": ("torch.median(a, 1).values + torch.median(a)", "_onnx_median(a, 1).values + _onnx_median(a)", lambda g, b: (ties(g, b, 5),), True),
    "nanmedian": ("torch.nanmedian(a, 1).values", "_onnx_nanmedian(a, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "mode": ("*torch.mode(a, 1)", "*_onnx_mode(a, 1)", lambda g, b: (ties(g, b, 6),), True),
    "sort": ("torch.sort(a, dim=1, stable=True).indices", "_onnx_sort(a, dim=1, stable=True).indices", lambda g, b: (with_nan(g, b, 6),), True),
    "argsort": ("torch.argsort(a, dim=1, descending=True, stable=True)", "_onnx_argsort(a, dim=1, descending=True, stable=True)", lambda g, b: (ties(g, b, 6),), True),
    "searchsorted": ("torch.searchsorted(s, a, right=True)", "_onnx_searchsorted(s, a, right=True)", lambda g, b: (ties(g, b, 5), ties(g, 6).sort().values), True),
    "hypot": ("torch.hypot(a, c)", "_onnx_hypot(a, c)", lambda g, b: (randn(g, b, 5) * 1e3, randn(g, b, 5)), True),
    "copysign": ("torch.copysign(a, c)", "_onnx_copysign(a, c)", lambda g, b: (randn(g, b, 5), ties(g, b, 5)), True),
    "erfinv": ("torch.erfinv(a)", "_onnx_erfinv(a)", lambda g, b: (torch.rand(b, 50, generator=g) * 1.98 - 0.99,), True),
    "gcd": ("torch.gcd(i, j)", "_onnx_gcd(i, j)", lambda g, b: (torch.randint(-60, 60, (b, 8), generator=g), torch.randint(-60, 60, (b, 8), generator=g)), True),
    "lcm": ("torch.lcm(i, j)", "_onnx_lcm(i, j)", lambda g, b: (torch.randint(-30, 30, (b, 8), generator=g), torch.randint(-30, 30, (b, 8), generator=g)), True),
    "scatter": ("torch.scatter(a, 1, i, c, reduce='multiply')", "_onnx_scatter(a, 1, i, c, reduce='multiply')", lambda g, b: (randn(g, b, 5), torch.randint(0, 5, (b, 8), generator=g), randn(g, b, 8)), True),
    "adaptive_max_pool2d": ("torch.nn.functional.adaptive_max_pool2d(a, (3, 3))", "_onnx_adaptive_max_pool2d(a, (3, 3))", lambda g, b: (randn(g, b, 2, 8, 7),), True),
    "cdist": ("torch.cdist(a, c, p=1)", "_onnx_cdist(a, c, p=1)", lambda g, b: (randn(g, b, 5, 3), randn(g, b, 4, 3)), True),
}
TWO = ("linalg_solve", "hypot", "copysign", "cdist")
PARAMS = {**{k: "a, c" for k in TWO}, "searchsorted": "a, s", "gcd": "i, j", "lcm": "i, j", "scatter": "a, i, c"}
TOLERANCE = {"erfinv": 5e-6}
MULTI_OUTPUT = ("cummax", "mode")


def case_params(key: str) -> list[str]:
    return [f"{key}_{name.strip()}" for name in PARAMS.get(key, "a").split(",")]


def case_expression(key: str, channel: str) -> str:
    original, helper, _, _ = CASES[key]
    text = helper if channel == "helper" else original
    for name in PARAMS.get(key, "a").split(","):
        text = re.sub(rf"\b{name.strip()}\b", f"{key}_{name.strip()}", text)
    return text


def build(keys: list[str], channel: str) -> torch.nn.Module:
    """One module computing every case: one export per exporter keeps the tests fast; outputs
    are compared per case, so a failure still names its decomposition."""
    namespace = {"torch": torch}
    if channel == "helper":
        for key in keys:
            load_function(key, namespace)
    params = ", ".join(p for key in keys for p in case_params(key))
    outputs = ", ".join(f"({case_expression(key, channel)},)" for key in keys)
    exec(f"def forward(self, {params}):\n    return ({outputs},)\n", namespace)
    return type("AllDecompositions", (torch.nn.Module,), {"forward": namespace["forward"]})().eval()


def inputs(keys: list[str], seed: int, batch: int) -> tuple:
    values = []
    for key in keys:
        values.extend(CASES[key][2](torch.Generator().manual_seed(seed * 100 + len(values)), batch))
    return tuple(values)


def dynamic_spec(keys: list[str], args: tuple) -> dict:
    spec, position = {}, 0
    for key in keys:
        count = len(case_params(key))
        for offset in range(count):
            if key == "searchsorted" and offset == 1:
                continue  # the sorted sequence is 1-D and keeps its size
            spec[position + offset] = {0: "batch"}
        position += count
    return spec


def run(keys: list[str], exporter: str, channel: str) -> list[dict]:
    model = build(keys, channel)
    args = inputs(keys, 0, 2)
    dynamic = dynamic_spec(keys, args)
    path = Path(tempfile.mkdtemp(prefix="onnxfix-decomp-")) / "m.onnx"
    used = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if channel == "decompose":
                from onnxfix.exporter.decompose import decomposition_context

                with decomposition_context(keys) as mode:
                    verify.export_model(model, args, exporter, path, dynamic)
                used = mode.used
            else:
                verify.export_model(model, args, exporter, path, dynamic)
        except Exception as exc:
            note = f"export failed: {type(exc).__name__}: {str(exc)[:400]}"
            return [{"case": key, "ok": False, "note": note} for key in keys]
    names = verify.input_names(model, len(args))
    results = {key: {"case": key, "ok": True, "max_abs": 0.0, "probes": 0, "used": used.get(key, 0)} for key in keys}
    for seed, batch in ((1, 2), (2, 2), (3, 3)):  # other values, then another batch size
        probe = inputs(keys, seed, batch)
        expected = verify.eager(model, probe)
        try:
            actual = verify.run_onnx(path, probe, names)
        except Exception as exc:
            return [{"case": key, "ok": False, "note": f"onnxruntime: {str(exc)[:300]}"} for key in keys]
        position = 0
        for key in keys:
            count = _output_count(key)
            got, want = actual[position : position + count], expected[position : position + count]
            position += count
            ok, max_abs, note = compare(want, got, rtol=TOLERANCE.get(key, 1e-4))
            result = results[key]
            result["max_abs"] = max(result["max_abs"], max_abs)
            result["probes"] += 1
            if not ok and result["ok"]:
                result.update(ok=False, note=f"differs at batch {batch}, seed {seed}: max abs {max_abs:.3g} {note}")
    return list(results.values())


def _output_count(key: str) -> int:
    return 2 if key in MULTI_OUTPUT else 1


def compare(expected, actual, rtol):
    """(ok, max abs error, note) over all outputs."""
    errors = verify.compare(expected, actual, rtol=rtol)
    worst = max((float("inf") if e.max_abs is None else e.max_abs for e in errors), default=0.0)
    return all(e.ok for e in errors), worst, "; ".join(e.note for e in errors if e.note)


def main() -> None:
    exporter = sys.argv[1]
    channel = sys.argv[2] if len(sys.argv) > 2 else "helper"
    keys = sys.argv[3:] or list(CASES)
    for result in run(keys, exporter, channel):
        print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
