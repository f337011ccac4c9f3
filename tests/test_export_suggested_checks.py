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


def test_the_checks_that_held_are_inserted_and_the_export_is_ok(tmp_path, capsys):
    """Two guards before one statement, one per export: each check is its own fix (Fix.key)."""
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
    assert ("        mask = torch.squeeze(self.mask[None, None, :seqlen, :seqlen], [0, 1])\n"
            "        if torch.compiler.is_exporting():  # decides torch.export's guard (onnxfix ONX611)\n"
            "            torch._check(1 != (1 + sp))\n"
            "        if torch.compiler.is_exporting():  # decides torch.export's guard (onnxfix ONX611)\n"
            "            torch._check(1 != (1 + mp))\n"
            "        out = F.scaled_dot_product_attention(") in fixed
    original, rewritten = load_module(MODELS / "kv_cache_item_slice.py"), load_module(model)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            expected = original.make_model()(*(a.clone() for a in args))
            got = rewritten.make_model()(*(a.clone() for a in args))
        assert all(torch.equal(e, g) for e, g in zip(expected, got))


def test_the_check_keeps_the_files_line_endings_and_indentation(tmp_path):
    """A CRLF file indented with tabs gets CRLF lines indented with tabs (the engine sets line
    endings: the rule writes '\\n')."""
    from fixture_runner import fixed

    source = ("import torch\r\n\r\n\r\nclass M(torch.nn.Module):\r\n\tdef forward(self, x, n):\r\n"
              "\t\tk = n.item()\r\n\t\treturn x[:k + 1]\r\n")
    path = tmp_path / "crlf.py"
    path.write_bytes(source.encode())
    path.with_suffix(".evidence.json").write_text(json.dumps(
        {"format": 1, "functions": [], "checks": [[7, "k + 1 != 1", True]]}), encoding="utf-8")
    assert fixed(path, unsafe=False) == source.replace(
        "\t\treturn", "\t\tif torch.compiler.is_exporting():  # decides torch.export's guard (onnxfix ONX611)\r\n"
        "\t\t\ttorch._check(k + 1 != 1)\r\n\t\treturn")
