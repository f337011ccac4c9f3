"""An ATen operator the legacy exporter names as untranslatable ("Exporting the operator
'aten::l1_loss' to ONNX opset version 20 is not supported") gets its decomposition at export
time, wherever the call came from (tests/export_models/module_level_loss.py: an nn.L1Loss held
in a global, which no static rule follows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnxfix.cli import main as cli_main

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_the_operator_legacy_names_is_decomposed_while_exporting(capsys):
    cli_main(["export", "--format", "json", f"{MODELS / 'module_level_loss'}.py:make_model", "--exporter", "legacy",
              "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "'aten::l1_loss'" in before["error"]
    assert target["fix"]["decompositions"] == ["l1_loss"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 1 (user)" and p["ok"] for p in after["probes"]), after["probes"]


def test_an_operator_legacy_cannot_size_is_decomposed_while_exporting(capsys):
    """"Unsupported: ONNX export of operator adaptive_avg_pool2d, input size not accessible": the
    decomposition keyed by the operator, for a pool inside an nn.Sequential."""
    cli_main(["export", "--format", "json", f"{MODELS / 'pyramid_pool_bins'}.py:make_model", "--exporter", "legacy",
              "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "operator adaptive_avg_pool2d, input size" in before["error"]
    assert target["fix"]["decompositions"] == ["adaptive_avg_pool2d"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
