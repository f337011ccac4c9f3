"""An ATen operator the legacy exporter names as untranslatable ("Exporting the operator
'aten::l1_loss' to ONNX opset version 20 is not supported", "Unsupported: ONNX export of operator
adaptive_avg_pool2d, input size not accessible") gets its decomposition at export time, wherever
the call came from: an nn.L1Loss held in a global (tests/export_models/module_level_loss.py), a
pool inside an nn.Sequential (pyramid_pool_bins.py), which no static rule follows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnxfix.cli import main as cli_main

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.mark.parametrize("model, error, key", [
    ("module_level_loss", "'aten::l1_loss'", "l1_loss"),
    ("pyramid_pool_bins", "operator adaptive_avg_pool2d, input size", "adaptive_avg_pool2d"),
])
def test_the_operator_legacy_names_is_decomposed_while_exporting(model, error, key, capsys):
    cli_main(["export", "--format", "json", f"{MODELS / model}.py:make_model", "--exporter", "legacy", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and error in before["error"]
    assert target["fix"]["decompositions"] == [key]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"].startswith("probe") and p["ok"] for p in after["probes"]), after["probes"]
