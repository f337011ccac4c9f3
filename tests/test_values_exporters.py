"""ONX2xx/ONX4xx value patterns on the installed torch: how each exporter fails on the
original (the measurement each rule's finding cites), and the three proofs for each fix:
the exact rewrite, identical eager outputs, and a correct export under both exporters on
other values and other sizes. The originals' verdicts are recorded per source and exporter
versions, a few re-measured on every run (tests/recorded_originals.py); so are the rewritten
classes' exports, per rewritten text, exported again wherever it changed (tests/recorded_exports.py)."""

import json
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch

from example_proofs import rewrite_copy
from recorded_exports import UPDATE, VALUES_FIXED_RECORD, fresh, merge, text_digest
from recorded_originals import VALUES_RECORD, digest, recorded
from onnxfix.exporter.targets import load_module
from warm_workers import run_script

MODELS = Path(__file__).parent / "values_models.py"
WORKER = Path(__file__).parent / "values_worker.py"
SW, FAILS, ORT, OK = "SILENTLY-WRONG", "EXPORT-FAILS", "ORT-FAILS", "OK"

# class -> (original: legacy, dynamo), fixed by onnxfix --write --unsafe-fixes
ORIGINAL = {
    "Tolist": (SW, OK),
    "FloatOfTensor": (SW, OK),
    "IntOfSize": (SW, OK),
    "IntOfSizeDivision": (SW, SW),
    "IntOfSizeShifted": (SW, SW),
    "IntOfSizeHalf": (SW, SW),
    "IntOfSizeByAttribute": (ORT, OK),
    "IntOfSizeRatio": (SW, SW),
    "ItemIntPadMask": (SW, OK),
    "IntOfSizeRoot": (SW, SW),
    "IntOfFloatName": (SW, SW),
    "FloatOfSize": (SW, OK),
    "BoolOfTensor": (FAILS, OK),
    "LenOfTensor": (SW, OK),
    "TensorFromSizes": (SW, OK),
    "TensorFromShape": (SW, OK),
    "Sqrt": (SW, FAILS),
    "Ceil": (SW, OK),
    "Floor": (SW, OK),
    "CeilOfScaledSize": (SW, OK),
    "FloorByScaleAttribute": (SW, OK),
    "Pow": (SW, OK),
    "Log2": (SW, FAILS),
    "MaxOfTensors": (SW, OK),
    "MaxWithNumber": (SW, OK),
    "MaxOfOneTensor": (SW, FAILS),
    "ShapeSplat": (OK, OK),
    "ItemFull": (SW, OK),
    "ItemClamp": (SW, OK),
    "ItemMaskedFill": (SW, OK),
    "NewTensorFromSizes": (SW, OK),
    "AsTensorFromShape": (SW, FAILS),
    "NumpyMaxClip": (SW, OK),
    "NumpyZeros": (ORT, OK),
    "NumpySplit": (SW, OK),
    "NumpyExp": (SW, OK),
    "NumpyMeanSteps": (SW, OK),
    "NumpySumShift": (SW, OK),
    "NumpyFinfoFill": (OK, FAILS),
    "AsTensorOfSize": (OK, FAILS),
    "TensorFromAppendedSizes": (SW, OK),
    "ItemSplitSizes": (ORT, OK),
    "SizeListItem": (FAILS, OK),
    "MappedSizes": (ORT, OK),
    "TypedFromSizes": (SW, FAILS),
    "ItemNameTopk": (SW, OK),
    "ItemNamePadMask": (SW, OK),
    "ItemNamePad": (SW, OK),
    "ItemNameScale": (SW, OK),
    "ItemArangeOneElement": (SW, OK),
    "ItemPadInt32": (SW, OK),
    "IntName": (SW, OK),
    "NumpyProdShape": (ORT, OK),
    "NumpyProdShapeTail": (SW, OK),
    "SizeNumel": (ORT, OK),
}
NO_FIX = {"Tolist", "BoolOfTensor", "Log2", "ShapeSplat"}
FIXED = sorted(set(ORIGINAL) - NO_FIX)
# Unsafe fixes measured NOT bit-identical on these inputs: name -> the largest difference
# allowed, in float32 epsilons of the output's largest magnitude. None since the NumPy fixes
# keep NumPy in eager behind `torch.onnx.is_in_onnx_export()`.
NOT_BIT_IDENTICAL: dict[str, float] = {}
# NumPy rewrites whose torch twin rounds differently from NumPy: guarded, so bit-identical in
# eager; the exported model computes in torch (same function up to rounding).
GUARDED_NUMPY = {"NumpyExp": (lambda x: torch.exp(x), lambda x: torch.from_numpy(np.exp(x.numpy()))),
                 "NumpySumShift": (lambda x: x + x.sum(), lambda x: x + x.numpy().sum())}


def _run(path: Path, exporter: str, names: list[str]) -> dict[str, list]:
    proc = run_script(WORKER.stem, [str(path), exporter, *names])
    rows = [json.loads(line[len("VALUES "):]) for line in proc.stdout.splitlines() if line.startswith("VALUES ")]
    assert len(rows) == len(names), proc.stderr[-3000:]
    return {row[0]: row[1:] for row in rows}


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory) -> Path:
    return rewrite_copy(MODELS, tmp_path_factory.mktemp("values"), unsafe=True)


# exported on every run, whatever the record holds, and compared with it
FIXED_CANARIES = ("IntOfSizeDivision", "NumpySplit")


def _exported(path: Path, names: list[str]) -> dict[str, dict]:
    """exporter -> name -> row, both exporters at once."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda exporter: _run(path, exporter, names) if names else {}, ("legacy", "dynamo"))
    return dict(zip(("legacy", "dynamo"), results))


@pytest.fixture(scope="module")
def verdicts(rewritten) -> dict:
    """(exporter) -> name -> row, for the rewritten classes: recorded where the record holds for the
    rewritten file's text (tests/recorded_exports.py), the others and the canaries exported now
    (all exports at once, originals too, took 54 s on 2 cores; the originals' rows are recorded:
    tests/recorded_originals.py)."""
    sha = text_digest(rewritten.read_text(encoding="utf-8"))
    recorded = {n: fresh(VALUES_FIXED_RECORD, n, sha) for n in FIXED if n not in FIXED_CANARIES}
    live = [n for n in FIXED if recorded.get(n) is None]
    if set(live) - set(FIXED_CANARIES):
        warnings.warn(f"{VALUES_FIXED_RECORD.name} does not hold for the rewritten {MODELS.name}: exported on this run; "
                      f"`{UPDATE} values-fixed` records it")
    rows = _exported(rewritten, live)
    return {e: {**{n: entry["exporters"][e] for n, entry in recorded.items() if entry}, **rows[e]} for e in rows}


def update_fixed_record(folder: Path) -> None:
    """Rewrite the models file into ``folder``, export every fixed class and record the rows."""
    rewritten = rewrite_copy(MODELS, folder, unsafe=True)
    rows, sha = _exported(rewritten, FIXED), text_digest(rewritten.read_text(encoding="utf-8"))
    merge(VALUES_FIXED_RECORD, {n: {"sha256": sha, "exporters": {e: rows[e][n] for e in rows}} for n in FIXED}, FIXED)


def measure_originals(names: list[str]) -> dict[str, dict]:
    """class -> its record entry: the models file's digest and each exporter's verdict, measured now."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        rows = dict(zip(("legacy", "dynamo"), pool.map(lambda exporter: _run(MODELS, exporter, names), ("legacy", "dynamo"))))
    return {n: {"sha256": digest(MODELS), "exporters": {e: rows[e][n][0] for e in ("legacy", "dynamo")}} for n in names}


def test_every_fixable_pattern_was_rewritten(rewritten):
    original, fixed = load_module(MODELS), load_module(rewritten)
    for name in ORIGINAL:
        changed = _forward_source(original, name) != _forward_source(fixed, name)
        assert changed == (name in FIXED), name


def _forward_source(module, name):
    import inspect

    return inspect.getsource(getattr(module, name))  # the class: forward and the methods it calls


@pytest.mark.parametrize("name", FIXED)
def test_rewrite_keeps_eager_outputs_identical(name, rewritten):
    original, fixed = load_module(MODELS), load_module(rewritten)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        before = getattr(original, name)()(*args)
        after = getattr(fixed, name)()(*args)
        assert before.dtype == after.dtype and before.shape == after.shape
        if name not in NOT_BIT_IDENTICAL:
            assert torch.equal(before, after), name
        else:
            scale = torch.finfo(before.dtype).eps * before.abs().max()
            assert ((before - after).abs() <= NOT_BIT_IDENTICAL[name] * scale).all(), name


@pytest.mark.parametrize("name", sorted(GUARDED_NUMPY))
def test_numpy_twin_differs_so_the_rewrite_keeps_numpy_in_eager(name, rewritten):
    # why these rewrites need the guard: the torch twin alone is not bit-identical on these
    # inputs; the rewrite (bit-identical, test above) computes it only under export
    original = load_module(MODELS)
    in_torch, in_numpy = GUARDED_NUMPY[name]
    inputs = [args[0] for args in [original.example_inputs(), *original.probe_inputs()]]
    assert not all(torch.equal(in_torch(x), in_numpy(x)) for x in inputs)
    assert "torch.onnx.is_in_onnx_export() else" in _forward_source(load_module(rewritten), name)


@pytest.mark.parametrize("name", sorted(ORIGINAL))
def test_original_fails_as_measured(name):
    legacy, dynamo = ORIGINAL[name]
    assert recorded(VALUES_RECORD, name, MODELS)["exporters"] == {"legacy": legacy, "dynamo": dynamo}


CANARIES = ("AsTensorOfSize", "IntOfSizeDivision", "NumpyZeros", "SizeListItem")  # each verdict, re-measured


@pytest.fixture(scope="module")
def canary_entries() -> dict[str, dict]:
    return measure_originals(list(CANARIES))


@pytest.mark.parametrize("name", CANARIES)
def test_recorded_original_is_what_a_new_measurement_gives(name, canary_entries):
    assert canary_entries[name] == recorded(VALUES_RECORD, name, MODELS)


@pytest.mark.parametrize("name", FIXED_CANARIES)
def test_recorded_fixed_export_is_what_a_new_export_gives(name, verdicts, rewritten):
    entry = fresh(VALUES_FIXED_RECORD, name, text_digest(rewritten.read_text(encoding="utf-8")))
    assert entry is not None, f"{VALUES_FIXED_RECORD.name} holds no export of {name} as rewritten now; `{UPDATE} values-fixed`"
    assert {e: verdicts[e][name] for e in ("legacy", "dynamo")} == entry["exporters"]


@pytest.mark.parametrize("name", FIXED)
@pytest.mark.parametrize("exporter", ["legacy", "dynamo"])
def test_rewrite_exports_correctly_on_other_values_and_sizes(name, exporter, verdicts):
    verdict, failing, error, probes = verdicts[exporter][name]
    assert verdict == OK, (failing, error)
    assert probes == ["export inputs", "probe 1 (user)", "probe 2 (user)"]
