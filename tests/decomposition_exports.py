"""Child process for tests/test_decompositions.py: export one module per decomposition with one
exporter and compare onnxruntime with eager PyTorch on inputs other than the export inputs
(other values, and another batch size where the batch dimension is dynamic).

    python tests/decomposition_exports.py dynamo|legacy [helper|decompose] [KEY|FAMILY ...]

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

from onnxfix.decompositions import DECOMPOSITIONS, REGISTRIES, load_function
from onnxfix.exporter import comparison, verify
from onnxfix.exporter.decompose import register_libraries
from onnxfix.exporter.proof_inputs import evaluate

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from fixture_exports import compare  # noqa: E402 - after the sys.path entry for tests/

# key -> the record's proof, and key -> family (registry_<family>.py)
CASES = {d.key: d.proof for d in DECOMPOSITIONS}
FAMILY = {d.key: r.__name__.rsplit(".", 1)[-1].removeprefix("registry_") for r in REGISTRIES for d in r.DECOMPOSITIONS}


def case_params(key: str) -> list[str]:
    return [f"{key}_{name.strip()}" for name in CASES[key].params.split(",")]


def case_expression(key: str, channel: str) -> str:
    text = CASES[key].helper if channel == "helper" else CASES[key].original
    for name in CASES[key].params.split(","):
        text = re.sub(rf"\b{name.strip()}\b", f"{key}_{name.strip()}", text)
    return text


def build(keys: list[str], channel: str) -> torch.nn.Module:
    """One module computing every case: one export per exporter keeps the tests fast; outputs
    are compared per case, so a failure still names its decomposition."""
    register_libraries()  # the custom ops the originals call
    namespace = {"torch": torch}
    if channel == "helper":
        for key in keys:
            load_function(key, namespace)
    params = ", ".join(p for key in keys for p in case_params(key))
    outputs = ", ".join(f"({case_expression(key, channel)},)" for key in keys)
    exec(f"def forward(self, {params}):\n    return ({outputs},)\n", namespace)
    return type("AllDecompositions", (torch.nn.Module,), {"forward": namespace["forward"]})().eval()


def inputs_of(key: str, seed: int, batch: int) -> tuple:
    """One case's inputs: the same whichever cases are exported with it."""
    return evaluate(CASES[key].inputs, torch.Generator().manual_seed(seed * 100), batch)


def inputs(keys: list[str], seed: int, batch: int) -> tuple:
    return tuple(value for key in keys for value in inputs_of(key, seed, batch))


def dynamic_spec(keys: list[str], args: tuple) -> dict:
    spec, position = {}, 0
    for key in keys:
        count = len(case_params(key))
        for offset in range(count):
            if offset in CASES[key].static:
                continue
            spec[position + offset] = {0: "batch"}
        position += count
    return spec


def run(keys: list[str], exporter: str, channel: str) -> list[dict]:
    """One export of the keys, compared in onnxruntime; the model file removed after."""
    with tempfile.TemporaryDirectory(prefix="onnxfix-decomp-") as folder:
        return _run(keys, exporter, channel, Path(folder) / "m.onnx")


def _run(keys: list[str], exporter: str, channel: str, path: Path) -> list[dict]:
    model = build(keys, channel)
    args = inputs(keys, 0, 2)
    dynamic = dynamic_spec(keys, args)
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
    counts = output_counts(model, args)
    results = {key: {"case": key, "ok": True, "max_abs": 0.0, "probes": 0, "used": used.get(key, 0)} for key in keys}
    for seed, batch in ((1, 2), (2, 2), (3, 3)):  # other values, then another batch size
        probe = inputs(keys, seed, batch)
        expected = verify.eager(model, probe)
        try:
            actual = comparison.run_onnx(path, probe, names)
        except Exception as exc:
            return [{"case": key, "ok": False, "note": f"onnxruntime: {str(exc)[:300]}"} for key in keys]
        position = 0
        for key, count in zip(keys, counts):
            got, want = actual[position : position + count], expected[position : position + count]
            position += count
            ok, max_abs, note = compare(want, got, rtol=CASES[key].rtol)
            result = results[key]
            result["max_abs"] = max(result["max_abs"], max_abs)
            result["probes"] += 1
            if not ok and result["ok"]:
                result.update(ok=False, note=f"differs at batch {batch}, seed {seed}: max abs {max_abs:.3g} {note}")
    return list(results.values())


def output_counts(model: torch.nn.Module, args: tuple) -> list[int]:
    """Per case, how many tensors its expression yields (forward returns one tuple per case)."""
    with torch.no_grad():
        per_case = model(*(a.clone() for a in args))
    return [len(verify.flatten(outputs)) for outputs in per_case]


def main() -> None:
    exporter = sys.argv[1]
    channel = sys.argv[2] if len(sys.argv) > 2 else "helper"
    chosen = sys.argv[3:] or list(CASES)
    keys = [key for key in CASES if key in chosen or FAMILY[key] in chosen]  # keys or family names
    for result in run(keys, exporter, channel):
        print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
