"""float32_compute on a half-precision arange (tests/export_models/half_arange_grid.py): the
legacy exporter's float16 Range fails to load in onnxruntime; `onnxfix export --fix` exports the
arange in float32 rounded to float16, and the model matches eager on other sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnxfix.cli import main as cli_main

MODEL = Path(__file__).parent / "export_models" / "half_arange_grid.py"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_a_float16_range_is_exported_in_float32(capsys):
    cli_main(["export", "--format", "json", f"{MODEL}:make_model", "--exporter", "legacy", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "ORT-FAILS" and "Type 'tensor(float16)'" in json.dumps(before)
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
