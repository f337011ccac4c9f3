"""ONX611 under `onnxfix export`: the checks torch.export suggests for a data-dependent guard are
evaluated at their line by the run (on the example and every probe) and the one that held is
inserted, only while exporting (tests/export_models/kv_cache_item_slice.py: ExecuTorch's
`.item()` start position)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from onnxfix.cli import main as cli_main
from onnxfix.exporter.suggested_checks import Suggestion, suggestions
from onnxfix.exporter.targets import load_module

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py

ERROR = '''GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(1, u0 + 1)

The following call raised this error:
  File "/m/model.py", line 24, in forward
    out = F.scaled_dot_product_attention(query, keys, keys, attn_mask=mask)

To fix the error, insert one of the following checks before this call:
  1. torch._check(1 == (1 + sp))
  2. torch._check(1 != (1 + sp))

(These suggested fixes were derived by replacing `u0` with sp in Eq(1, u0 + 1) and its negation.)
'''


def test_the_suggested_checks_are_read_with_the_call_they_belong_to():
    assert suggestions(ERROR) == [Suggestion("/m/model.py", 24, ("1 == (1 + sp)", "1 != (1 + sp)"))]
    assert suggestions(ERROR.replace("  2. torch._check(1 != (1 + sp))", "  2. torch._check(1 !=)")) == [
        Suggestion("/m/model.py", 24, ("1 == (1 + sp)",))]  # a suggestion that does not parse is left out
    no_checks = ERROR.split("To fix")[0]
    assert suggestions(no_checks + no_checks) == []


def test_the_check_that_held_is_inserted_and_the_export_is_ok(tmp_path, capsys):
    model = tmp_path / "kv_cache_item_slice.py"
    shutil.copy(MODELS / "kv_cache_item_slice.py", model)
    cli_main(["export", "--format", "json", f"{model}:make_model", "--exporter", "dynamo", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "Eq(1, u0 + 1)" in before["error"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
    fixed = model.read_text(encoding="utf-8")
    assert ("        if torch.compiler.is_exporting():  # decides torch.export's guard (onnxfix ONX611)\n"
            "            torch._check(1 != (1 + sp))\n"
            "        out = F.scaled_dot_product_attention(query, keys, keys, attn_mask=mask)\n") in fixed
    original, rewritten = load_module(MODELS / "kv_cache_item_slice.py"), load_module(model)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            expected = original.make_model()(*(a.clone() for a in args))
            got = rewritten.make_model()(*(a.clone() for a in args))
        assert all(torch.equal(e, g) for e, g in zip(expected, got))
