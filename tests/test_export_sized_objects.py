"""`onnxfix export --write` reading the run's types: `len()` of an object of the model's own class
whose `__len__` returns a tensor's size (detectron2's Instances) is `obj.__len__()`, which keeps the
size a graph value (tests/export_models/sized_instances.py)."""

from __future__ import annotations

import pytest

from export_cli import written_and_proven

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_len_of_an_instances_the_run_saw_calls_its_len_method(tmp_path, capsys):
    """Detic: `[len(p) for p in proposals]` as split sizes; legacy keeps the export-time counts
    (onnxruntime fails on others); `p.__len__()` (safe: what `len()` calls, without the int conversion)."""
    written = written_and_proven(tmp_path, capsys, "sized_instances.py", ["OK", "ORT-FAILS"])
    assert "per_image = [p.__len__() for p in proposals]" in written
