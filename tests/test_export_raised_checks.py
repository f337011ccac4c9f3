"""An input check the export stops on while eager passes it (tests/export_models/hashed_size_check.py:
shapes hashed in a `set`): the run notes the line each export raised at (exporter/run_evidence.py
"raised"), ONX601 skips the check while exporting, and both exports match eager on other sizes; the
written model raises in eager as before."""

from __future__ import annotations

import shutil

import pytest
import torch

from export_cli import MODELS, cli_json
from onnxfix.exporter.targets import load_module

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py

CHECK = "        if not torch.onnx.is_in_onnx_export() and len(set(shapes.values())) > 1:\n"


def test_a_check_both_exports_stopped_on_is_skipped_while_exporting(tmp_path, capsys):
    copy = tmp_path / "hashed_size_check.py"
    shutil.copy(MODELS / "hashed_size_check.py", copy)
    code, document = cli_json([f"{copy}:make_model", "--exporter", "both", "--write"], capsys)
    (target,) = document["targets"]
    before = target["results"]
    assert [r["verdict"] for r in before] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    assert "unhashable type" in before[0]["error"] and "must share" in before[1]["error"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"]
    assert code == 0 and CHECK in copy.read_text()
    written = load_module(copy)
    model = written.make_model()
    for args in [written.example_inputs(), *written.probe_inputs()]:
        assert torch.equal(model(*args), load_module(MODELS / "hashed_size_check.py").make_model()(*args))
    with pytest.raises(ValueError, match="must share"):  # eager still checks
        model(torch.randn(2, 5, 8), torch.randn(2, 6, 4))
