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
    "cummax": ("torch.stack(torch.cummax(a, 1)).float()", "torch.stack(_onnx_cummax(a, 1)).float()", lambda g, b: (with_nan(g, b, 6),), True),
    "cummin": ("a.cummin(1).indices", "_onnx_cummin(a, 1).indices", lambda g, b: (ties(g, b, 6),), True),
    "kthvalue": ("torch.kthvalue(a, 2, 1).values", "_onnx_kthvalue(a, 2, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "median": ("torch.median(a, 1).values + torch.median(a)", "_onnx_median(a, 1).values + _onnx_median(a)", lambda g, b: (ties(g, b, 5),), True),
    "nanmedian": ("torch.nanmedian(a, 1).values", "_onnx_nanmedian(a, 1).values", lambda g, b: (with_nan(g, b, 5),), True),
    "mode": ("torch.stack(torch.mode(a, 1)).float()", "torch.stack(_onnx_mode(a, 1)).float()", lambda g, b: (ties(g, b, 6),), True),
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


def build(key: str, channel: str) -> torch.nn.Module:
    original, helper, _, _ = CASES[key]
    params = PARAMS.get(key, "a")
    namespace = {"torch": torch}
    if channel == "helper":
        load_function(key, namespace)
    exec(f"def forward(self, {params}):\n    return {helper if channel == 'helper' else original}\n", namespace)
    return type(f"Case_{key}", (torch.nn.Module,), {"forward": namespace["forward"]})().eval()


def run_case(key: str, exporter: str, channel: str) -> dict:
    _, _, make_inputs, dynamic_batch = CASES[key]
    model = build(key, channel)
    args = make_inputs(torch.Generator().manual_seed(0), 2)
    dynamic = {i: {0: "batch"} for i in range(len(args)) if dynamic_batch and args[i].dim() > 1} or None
    if key == "searchsorted":
        dynamic = {0: {0: "batch"}}
    path = Path(tempfile.mkdtemp(prefix="onnxfix-decomp-")) / "m.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if channel == "decompose":
                from onnxfix.exporter.decompose import decomposition_context

                with decomposition_context([key]) as mode:
                    verify.export_model(model, args, exporter, path, dynamic)
                if not mode.used:
                    return {"case": key, "ok": False, "note": "decomposition not applied"}
            else:
                verify.export_model(model, args, exporter, path, dynamic)
        except Exception as exc:
            return {"case": key, "ok": False, "note": f"export failed: {type(exc).__name__}: {str(exc)[:300]}"}
    names = verify.input_names(model, len(args))
    worst = 0.0
    probes = [make_inputs(torch.Generator().manual_seed(seed), 2) for seed in (1, 2)]
    if dynamic:
        probes.append(make_inputs(torch.Generator().manual_seed(3), 3))
    for probe in probes:
        expected = verify.eager(model, probe)
        try:
            actual = verify.run_onnx(path, probe, names)
        except Exception as exc:
            return {"case": key, "ok": False, "note": f"onnxruntime: {str(exc)[:300]}"}
        ok, max_abs, _, note = verify.compare(expected, actual, rtol=TOLERANCE.get(key, 1e-4))
        worst = max(worst, max_abs)
        if not ok:
            return {"case": key, "ok": False, "note": f"differs: max abs {max_abs:.3g} {note}", "shape": list(probe[0].shape)}
    return {"case": key, "ok": True, "max_abs": worst, "probes": len(probes)}


def main() -> None:
    exporter = sys.argv[1]
    channel = sys.argv[2] if len(sys.argv) > 2 else "helper"
    keys = sys.argv[3:] or list(CASES)
    for key in keys:
        print("RESULT " + json.dumps(run_case(key, exporter, channel)), flush=True)


if __name__ == "__main__":
    main()
