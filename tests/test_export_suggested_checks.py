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


def test_an_if_on_a_data_dependent_value_offers_its_test_and_its_negation(tmp_path):
    """torch suggests nothing for a Python `if` on an unbacked size: the test is the guard. The
    candidates: the test's comparisons (each of an `and`'s) and their negation (each of an
    `or`'s); an `elif`, a chained comparison or a bare value offer nothing; an `assert`, its test."""
    from types import SimpleNamespace

    from onnxfix.exporter.locations import ExportFinding, Location
    from onnxfix.exporter.suggested_checks import branch_checks, suggested_in

    model = tmp_path / "m.py"
    model.write_text("def f(p, q, n):\n"
                     "    if p.shape[0] > 0 and n == 2:\n        pass\n"
                     "    if not (q.numel() >= 1 or n != 3):\n        pass\n"
                     "    if n:\n        pass\n"
                     "    elif n < 1:\n        pass\n"
                     "    if 0 < n < 3:\n        pass\n", encoding="utf-8")
    path = str(model.resolve())

    def result(*lines, error=""):
        findings = [ExportFinding("ONX913", "guard", Location(path, line), "dynamo") for line in lines]
        return SimpleNamespace(findings=findings, verdict=SimpleNamespace(error=error))

    def bools(line, test):  # the branch kept as the run took it, for a test on a tensor's value
        return [Suggestion(path, line, (f"bool({test})",)), Suggestion(path, line, (f"not bool({test})",))]

    assert branch_checks([result(2, 4, 6, 8, 10, 3)]) == [
        Suggestion(path, 2, ("p.shape[0] > 0", "n == 2")),  # its negation is no conjunction
        *bools(2, "p.shape[0] > 0 and n == 2"),
        Suggestion(path, 4, ("q.numel() < 1", "n == 3")),  # not (a or b): neither holds
        *bools(4, "not (q.numel() >= 1 or n != 3)"),
        *bools(6, "n"), *bools(10, "0 < n < 3"),
    ]
    model.write_text("def f(p, q):\n    if p.shape[0] > 0:\n        pass\n    assert len(p) == len(q), len(q)\n"
                     "    if (n := p.sum()) > 0:\n        pass\n", encoding="utf-8")
    assert branch_checks([result(2, 4, 5)]) == [
        Suggestion(path, 2, ("p.shape[0] > 0",)), Suggestion(path, 2, ("p.shape[0] <= 0",)), *bools(2, "p.shape[0] > 0"),
        Suggestion(path, 4, ("len(p) == len(q)",)),  # it held where it ran
        Suggestion(path, 4, ("bool(len(p) == len(q))",)),
    ]  # a test with a `:=` is not evaluated a second time: nothing for line 5
    assert branch_checks([result(2)], lambda _: "def f(p):\n    p = p\n") == []  # the text the export ran
    suggested = ERROR.replace("/m/model.py", path).replace("line 24", "line 2")
    assert suggested_in([result(2, error=suggested)])[0] == (  # torch's own suggestion, then the branch's
        Suggestion(path, 2, ("1 == (1 + sp)", "1 != (1 + sp)")))


def test_a_branch_taken_every_time_is_checked_and_the_export_is_ok(tmp_path, capsys):
    """tests/export_models/image_token_branch.py: Phi-3-vision's `if positions.shape[0] > 0:`
    after a nonzero. Dynamo EXPORT-FAILS -> OK, legacy stays OK; eager outputs identical."""
    model = tmp_path / "image_token_branch.py"
    shutil.copy(MODELS / "image_token_branch.py", model)
    cli_main(["export", "--format", "json", f"{model}:make_model", "--exporter", "both", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "OK"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"], target["fix"]["results"]
    assert ("        hidden = self.wte(input_ids.clamp_min(0))\n"
            "        if torch.compiler.is_exporting():  # decides torch.export's guard (onnxfix ONX611)\n"
            "            torch._check(positions.shape[0] > 0)\n"
            "        if positions.shape[0] > 0:\n") in model.read_text(encoding="utf-8")
    original, rewritten = load_module(MODELS / "image_token_branch.py"), load_module(model)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            assert torch.equal(original.make_model()(*args), rewritten.make_model()(*args))


def test_a_test_on_a_tensor_value_keeps_the_branch_the_run_took(tmp_path, capsys):
    """tests/export_models/time_grid_checks.py: torchdiffeq's `if len(t) > 1 and t[0] > t[1]:`
    (never taken on the export inputs and probes) and `assert t[0] == 0 and t[-1] == 1` (always held), tests on a tensor's value
    torch._check cannot take: kept that way while exporting. Dynamo EXPORT-FAILS -> OK, legacy
    stays OK; eager outputs identical."""
    model = tmp_path / "time_grid_checks.py"
    shutil.copy(MODELS / "time_grid_checks.py", model)
    cli_main(["export", "--format", "json", f"{model}:make_model", "--exporter", "both", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "OK"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"], target["fix"]["results"]
    fixed = model.read_text(encoding="utf-8")
    assert "        if not torch.compiler.is_exporting() and (t.shape[0] > 1 and t[0] > t[1]):\n" in fixed
    assert "        assert torch.compiler.is_exporting() or (t[0] == 0 and t[-1] == 1)\n" in fixed
    original, rewritten = load_module(MODELS / "time_grid_checks.py"), load_module(model)
    for args in [original.example_inputs(), *original.probe_inputs(), (torch.randn(2, 4), torch.linspace(0, -1, 4))]:
        with torch.no_grad():
            assert torch.equal(original.make_model()(*args), rewritten.make_model()(*args))
