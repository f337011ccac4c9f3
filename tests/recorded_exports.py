"""Proof 3 of the FIXED test models (they export and match eager in onnxruntime), kept as a record
that is used only where it is exact, as a build cache is.

Exporting every rewritten flow model, value model and ONX5xx fixture on every run cost about 650
CPU seconds, half of the suite on the 2-core machine, to find again what the last run found: the
same source text, exported by the same torch, onnx, onnxruntime and onnxscript, gives the same
graph and the same onnxruntime outputs. So an entry is keyed by the sha256 of the text that is
exported (the rewritten model, helper bodies and the eager reference included) and the record by
the installed versions (recorded_originals.STACK). Where either differs (a rule changed a rewrite,
a helper's body changed, another torch), the model is exported on this run, as before, and the
test asserts on what that export gives: a stale record makes the suite slower, never wrong.
`python tests/update_originals.py fixed` (or `fixtures`, `values-fixed`) refreshes the records;
review the diff.

A few canaries are exported on every run and must agree with their entries, so that a change to
onnxfix's own verification (probes, comparison) shows. The record does not know the CPU: the
comparisons are to a tolerance, which ATen's kernel paths stay within (test_decompositions_records
checks the helpers' eager outputs under each capability on every run).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import recorded_originals as originals

HERE = Path(__file__).resolve().parent
FLOW_FIXED_RECORD = HERE / "flow_models" / "fixed.json"
FIXTURES_RECORD = HERE / "fixtures" / "proof_exports.json"
VALUES_FIXED_RECORD = HERE / "values_fixed.json"
UPDATE = "python tests/update_originals.py"


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
    if data["versions"] != originals.installed_versions():
        return None
    entry = data["models"].get(name)
    return entry if entry is not None and entry["sha256"] == sha256 else None


def merge(record: Path, entries: dict[str, dict], every: list[str]) -> None:
    """Write ``entries`` into the record, keeping the other entries of ``every`` that hold for
    the installed versions (a record of another install is replaced whole)."""
    versions, old = originals.installed_versions(), originals.load(record)
    kept = {n: e for n, e in old["models"].items() if n in every} if old["versions"] == versions else {}
    originals.save(record, versions, {**kept, **entries})
