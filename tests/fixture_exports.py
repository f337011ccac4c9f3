"""Child process for tests/test_operator_fixtures.py (proof 3 of the ONX5xx source fixes).

    python tests/fixture_exports.py dynamo|legacy [CODE-PREFIX ...]

Loads every ONX5xx fixture's rewritten source (<case>.unsafe.py, else <case>.fixed.py), wraps
them in modules of at most OP_BUDGET traced ops each (a fixture over the budget alone), exports each
module with a dynamic batch dimension, all in this one process (the import and the exporter's
start-up are paid once), and compares onnxruntime with eager PyTorch running the ORIGINAL fixture
on other values and another batch size. Prints one JSON line per fixture.

Batches, not one module for the whole code: the onnxscript optimizer that the dynamo exporter runs
(optimize=True, the default users get) takes time growing faster than the graph: measured on
ONX514's five fixtures (6,714 nodes together), it took 75 s on the wrapped module and 18 s on the
five models exported one by one, while tracing took 92 s either way. Small fixtures still share an
export (each export has a fixed cost of a few seconds).
"""

from __future__ import annotations

import json
import sys
import tempfile
import types
import warnings
from pathlib import Path

import torch

from helper_bodies import expand
from onnxfix.exporter import comparison, verify

FIXTURES = Path(__file__).parent / "fixtures"
# Documented error bounds of the unsafe (approximate) fixes, absolute. A fixture may set its own
# with a module-level TOLERANCE = ... in the original model file.
TOLERANCE = {"ONX501": 1e-4, "ONX507": 1e-5}


def tolerance(name: str, module, default: float) -> float:
    return getattr(module, "TOLERANCE", TOLERANCE.get(name.split("/")[0], default))


def load(path: Path):
    """The fixture as a module; golden files get their helper bodies back (tests/helper_bodies.py)."""
    name = f"fixture_{path.parent.name}_{path.stem.replace('.', '_')}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    exec(compile(expand(path.read_text(encoding="utf-8")), str(path), "exec"), module.__dict__)
    return module


def selected(name: str, prefixes: tuple[str, ...]) -> bool:
    """`ONX513/spectral` names that fixture alone, not `ONX513/spectral_features` too."""
    return any(name == prefix if "/" in prefix else name.startswith(prefix) for prefix in prefixes)


def proof_fixtures(prefixes: tuple[str, ...] = ("ONX5",)) -> list[tuple[str, Path, Path]]:
    """(name, original, rewritten) for each ONX5xx fixture (names `CODE/stem` starting with one
    of ``prefixes``: a code, a family like ONX51, or, with a slash, one fixture by its whole
    name) that has a fix and a model."""
    found = []
    for original in sorted(FIXTURES.glob("ONX5*/*.py")):
        if not selected(f"{original.parent.name}/{original.stem}", prefixes):
            continue
        if original.name.endswith((".fixed.py", ".unsafe.py")):
            continue
        rewritten = next((p for p in (original.with_suffix(".unsafe.py"), original.with_suffix(".fixed.py"))
                          if p.exists()), None)
        rewritten = rewritten if rewritten else None
        if rewritten is None or "def inputs(" not in original.read_text():
            continue
        found.append((f"{original.parent.name}/{original.stem}", original, rewritten))
    return found


def wrapper(models, counts) -> torch.nn.Module:
    """One module calling every fixture model; forward has one named parameter per input (the
    exporters' dynamic-shape specs are keyed by forward's parameter names)."""
    names = [f"x{i}" for i in range(sum(counts))]
    calls, position = [], 0
    for index, count in enumerate(counts):
        calls.append(f"self.models[{index}]({', '.join(names[position:position + count])})")
        position += count
    namespace = {}
    exec(f"def forward(self, {', '.join(names)}):\n    return ({', '.join(calls)},)\n", namespace)

    def init(self):
        torch.nn.Module.__init__(self)
        self.models = torch.nn.ModuleList(models)

    return type("AllFixtures", (torch.nn.Module,), {"__init__": init, "forward": namespace["forward"]})()


def compare(expected, actual, rtol):
    """(ok, max abs error, note) over all outputs."""
    errors = comparison.compare(expected, actual, rtol=rtol)
    worst = max((float("inf") if e.max_abs is None else e.max_abs for e in errors), default=0.0)
    return all(e.ok for e in errors), worst, "; ".join(e.note for e in errors if e.note)


def prove(exporter: str, fixtures, originals, rewritten) -> list[dict]:
    """One export of the wrapped fixtures, compared in onnxruntime; the model file removed after."""
    with tempfile.TemporaryDirectory(prefix="onnxfix-fixtures-") as folder:
        return _prove(exporter, fixtures, originals, rewritten, Path(folder) / "m.onnx")


def _prove(exporter: str, fixtures, originals, rewritten, path: Path) -> list[dict]:
    """Exports the rewritten models of ``fixtures`` wrapped in one module and compares onnxruntime
    with the original models in eager; one result per fixture."""

    def all_inputs(batch, seed):
        return tuple(t for module in originals for t in module.inputs(batch, seed))

    counts = [len(module.inputs(2, 0)) for module in originals]
    fixed = wrapper([m.make_model() for m in rewritten], counts).eval()
    reference = wrapper([m.make_model() for m in originals], counts).eval()
    args = all_inputs(2, 0)
    dynamic = {i: {0: "batch"} for i, a in enumerate(args) if a.dim() > 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            verify.export_model(fixed, args, exporter, path, dynamic)
        except Exception as exc:
            return [{"case": name, "ok": False, "note": f"export failed: {str(exc)[:400]}"} for name, _, _ in fixtures]
    names = verify.input_names(fixed, len(args))
    results = {name: {"case": name, "ok": True, "max_abs": 0.0, "probes": 0} for name, _, _ in fixtures}
    for seed, batch in ((1, 2), (2, 2), (3, 3)):
        probe = all_inputs(batch, seed)
        with torch.no_grad():
            expected = [verify.flatten(out) for out in reference(*probe)]
        actual = comparison.run_onnx(path, probe, names)
        position = 0
        for (name, _, _), module, want in zip(fixtures, originals, expected):
            got = actual[position : position + len(want)]
            position += len(want)
            ok, max_abs, note = compare(want, got, rtol=tolerance(name, module, 1e-5))
            result = results[name]
            result["max_abs"] = max(result["max_abs"], max_abs)
            result["probes"] += 1
            if not ok and result["ok"]:
                result.update(ok=False, note=f"batch {batch} seed {seed}: max abs {max_abs:.3g} {note}")
    return list(results.values())


# Traced torch calls per export: ~1.3 ONNX nodes each before optimization. ONX514's gamma_head
# (~1,900) and von_mises (~1,100) export alone, ONX515's four fixtures (~800) together.
OP_BUDGET = 1000


def traced_ops(module, args) -> int:
    """How many torch functions the export branch of ``module`` calls on ``args`` (run in eager with
    torch.onnx.is_in_onnx_export() True): an estimate of the exported graph's size."""
    from unittest import mock

    from torch.overrides import TorchFunctionMode

    class Count(TorchFunctionMode):
        calls = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            Count.calls += 1
            return func(*args, **(kwargs or {}))

    try:
        with torch.no_grad(), mock.patch("torch.onnx.is_in_onnx_export", return_value=True), Count():
            module(*args)
    except Exception:
        return OP_BUDGET  # cannot tell: export it alone
    return Count.calls


def batches(fixtures, originals, rewritten):
    """Consecutive fixtures grouped while their estimated graph sizes add up to OP_BUDGET."""
    batch, total = [], 0
    for item in zip(fixtures, originals, rewritten):
        size = traced_ops(item[2].make_model().eval(), item[1].inputs(2, 0))
        if batch and total + size > OP_BUDGET:
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += size
    if batch:
        yield batch


def main() -> None:
    exporter = sys.argv[1]
    fixtures = proof_fixtures(tuple(sys.argv[2:]) or ("ONX5",))
    originals = [load(o) for _, o, _ in fixtures]
    rewritten = [load(r) for _, _, r in fixtures]
    for batch in batches(fixtures, originals, rewritten):
        for result in prove(exporter, *map(list, zip(*batch))):
            print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
