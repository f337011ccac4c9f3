"""ONX208 (`x.stride()` -> `_onnx_strides(x)`) and the legacy as_strided decomposition, proven on
tests/export_models/rel_shift_strides.py: the rewrite keeps eager outputs bit-identical, and
`onnxfix export --fix` turns both exporters' failures into exports that match eager in onnxruntime
on other batch sizes and lengths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from example_proofs import eager_outputs, identical, rewrite_copy
from onnxfix.cli import main as cli_main

MODEL = Path(__file__).parent / "export_models" / "rel_shift_strides.py"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_strides_rewrite_keeps_eager_outputs_identical(tmp_path):
    rewritten = rewrite_copy(MODEL, tmp_path, unsafe=False)
    assert "batch_stride, head_stride, time1_stride, n_stride = _onnx_strides(x)\n" in rewritten.read_text()
    assert identical(eager_outputs(MODEL), eager_outputs(rewritten))


def test_export_fix_exports_the_relative_shift_under_both_exporters(capsys):
    cli_main(["export", "--format", "json", f"{MODEL}:make_model", "--exporter", "both", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    # the untranslated aten.sym_stride is the strides' query, not the as_strided call it feeds
    dispatch = [f["message"] for r in target["results"] for f in r["findings"] if f["code"] == "ONX920"]
    assert dispatch and not any("--decompose-ops" in m for m in dispatch), dispatch
    fix = target["fix"]
    assert "_onnx_strides(x)" in fix["diff"] and "_onnx_as_strided(x, " in fix["diff"]
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]
