"""Verdicts of the test models AS WRITTEN (before any fix), measured once and stored beside them.

The flow proofs (tests/flow_models) and the value proofs (tests/values_models.py) show that each
original fails the way its rule says; the rewritten models are exported on every run (proof 3).
Re-measuring every original on every run as well cost about 250 exports, a fifth of the suite on
the 2-core machine, to find again what the last measurement found. So the originals' verdicts
are a record, used only while it is exact: for the model source it was measured on (sha256) and
for the installed torch, onnx, onnxruntime, onnxscript, numpy and transformers. Anything else
fails the test with the command that re-measures (`python tests/update_originals.py`). A few canary originals are
re-measured on every run and must agree with their record, so that a change to onnxfix's own
verification (probes, comparison) that shifts verdicts shows up too.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOW_RECORD = HERE / "flow_models" / "originals.json"
VALUES_RECORD = HERE / "values_originals.json"
REMEASURE = "re-measure with `python tests/update_originals.py` (from the repository root) and review the diff"
# what an original's verdict depends on besides its source (numpy: the NumPy models; transformers:
# a model built on it); torch without its local build tag, as PyPI's CUDA build and the CPU
# wheel of one release run the same CPU code
STACK = ("torch", "onnx", "onnxruntime", "onnxscript", "numpy", "transformers")


@functools.cache  # importlib.metadata scans site-packages: a third of a second a call
def installed_versions() -> dict[str, str]:
    return {name: metadata.version(name).split("+")[0] for name in STACK}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load(record: Path) -> dict:
    return json.loads(record.read_text(encoding="utf-8")) if record.exists() else {"versions": {}, "models": {}}


@functools.cache
def _loaded(record: Path) -> dict:
    return load(record)


def save(record: Path, versions: dict[str, str], models: dict[str, dict]) -> None:
    """One line per model, so that a re-measurement's diff shows which verdicts moved."""
    lines = [f"  {json.dumps(name)}: {json.dumps(models[name], sort_keys=True)}" for name in sorted(models)]
    text = f'{{\n "versions": {json.dumps(versions, sort_keys=True)},\n "models": {{\n' + ",\n".join(lines) + "\n }\n}\n"
    record.write_text(text, encoding="utf-8")


def recorded(record: Path, name: str, source: Path) -> dict:
    """The stored verdicts of ``name`` (measured on ``source``), or an AssertionError saying why
    the record does not hold for this checkout."""
    data = _loaded(record)
    assert data["versions"] == installed_versions(), (
        f"{record.name} was measured with {data['versions']}, installed: {installed_versions()}; {REMEASURE}")
    entry = data["models"].get(name)
    assert entry is not None, f"{name} has no measurement in {record.name}; {REMEASURE}"
    assert entry["sha256"] == digest(source), f"{source.name} changed since {record.name} measured it; {REMEASURE}"
    return entry
