"""Proof 3 of the FIXED test models (they export and match eager in onnxruntime), kept as a record
that is used only where it is exact, as a build cache is.

Exporting every rewritten flow model, value model and ONX5xx fixture on every run cost about 650
CPU seconds, half of the suite on the 2-core machine, to find again what the last run found: the
same source text, exported by the same torch, onnx, onnxruntime and onnxscript, gives the same
graph and the same onnxruntime outputs. So an entry is keyed by the sha256 of the text that is
exported (the rewritten model, helper bodies and the eager reference included) and the record by
the installed versions (recorded_originals.STACK) and the sha256 of the verification itself
(INSTRUMENT: onnxfix's export-and-compare modules and the tests' export workers). Where any of
these differs (a rule changed a rewrite, a helper's body changed, the probes changed, another
torch), the model is exported on this run, as before, and the test asserts on what that export
gives (the run warns). `python tests/update_originals.py fixed` (or `fixtures`, `values-fixed`)
refreshes the records; review the diff.

What the key cannot see: a change elsewhere in onnxfix that alters how a fixed model exports
without touching INSTRUMENT. A few canaries are exported on every run and must agree with their
entries for that. The record does not know the CPU either: the comparisons are to a tolerance,
which ATen's kernel paths stay within (test_decompositions_records checks the helpers' eager
outputs under each capability on every run).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import recorded_originals as originals

HERE = Path(__file__).resolve().parent
FLOW_FIXED_RECORD = HERE / "flow_models" / "fixed.json"
FIXTURES_RECORD = HERE / "fixtures" / "proof_exports.json"
HELPERS_RECORD = HERE / "helper_exports.json"  # the legacy exports of the decomposition proofs, by family
VALUES_FIXED_RECORD = HERE / "values_fixed.json"
UPDATE = "python tests/update_originals.py"
REPO = HERE.parent
# the verification a recorded verdict comes from: the export, probes and comparison (exporter/verify.py
# and what it runs) and the tests' workers that drive them
INSTRUMENT = (
    *(REPO / "onnxfix" / "exporter" / f"{name}.py" for name in (
        "verify", "comparison", "model_io", "model_state", "probes", "nn_layers", "errors", "failure_facts",
        "python_arguments", "onnx_registry", "unit_dims", "result", "ties", "targets", "guards", "kv_cache")),
    HERE / "fixture_exports.py", HERE / "flow_batch_worker.py", HERE / "values_worker.py",
    HERE / "decomposition_exports.py", REPO / "onnxfix" / "exporter" / "proof_inputs.py",
)


@functools.cache
def record_versions() -> dict[str, str]:
    """What every entry of a record was measured with: the installed stack and the instrument's digest."""
    return {**originals.installed_versions(), "instrument": text_digest(*(p.read_text(encoding="utf-8") for p in INSTRUMENT))}


def text_digest(*texts: str) -> str:
    """The key of an entry: the sha256 of the texts exported (and compared against), in order."""
    sha = hashlib.sha256()
    for text in texts:
        sha.update(text.encode("utf-8"))
        sha.update(b"\0")
    return sha.hexdigest()


def fresh(record: Path, name: str, sha256: str) -> dict | None:
    """The entry of ``name`` if it was measured on the text with this digest and the installed
    versions, else None (the caller exports it now)."""
    data = originals._loaded(record)
    if data["versions"] != record_versions():
        return None
    entry = data["models"].get(name)
    return entry if entry is not None and entry["sha256"] == sha256 else None


def holds(record: Path) -> bool:
    """Whether the record was measured with the installed stack and the instrument as it is now."""
    return originals.load(record)["versions"] == record_versions()


def merge(record: Path, entries: dict[str, dict], every: list[str]) -> None:
    """Write ``entries`` into the record, keeping the other entries of ``every`` (the callers measure
    every model where the record does not hold: holds())."""
    old = originals.load(record)
    kept = {n: e for n, e in old["models"].items() if n in every} if old["versions"] == record_versions() else {}
    originals.save(record, record_versions(), {**kept, **entries})
