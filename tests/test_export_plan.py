"""`onnxfix export` without exporting: targets, --dynamic, config validation, source mapping,
ONX9xx docs, JSON shape. Fast: nothing here imports torch or runs a model."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from html_tables import Tables as _Tables
from onnxfix.cli import main as cli_main
from onnxfix.config import ConfigError, settings_from_table
from onnxfix.exporter import plan, render, render_html
from onnxfix.exporter.locations import Location
from onnxfix.exporter.result import NodeTrace, OutputError, ProbeResult, Verdict
from onnxfix.exporter.session import ExporterResult, TargetResult
from onnxfix.exporter.sourcemap import anchor, findings_for
from onnxfix.patterns import all_rules
from onnxfix.patterns.export_codes import CODES
from onnxfix.patterns.selectors import rule_selectors

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "tests" / "export_models"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def test_dynamic_syntax_indexes_names_and_shared_dims():
    assert plan.parse_dynamic(["x:0=batch", "1:0=batch,2", "mask:-1=seq", "y:1"]) == {
        "x": {0: "batch"},
        "1": {0: "batch", 2: "input1_dim2"},
        "mask": {-1: "seq"},
        "y": {1: "y_dim1"},
    }


@pytest.mark.parametrize("value, message", [
    ("x", "expected INPUT:DIM[=NAME]"),
    ("x:", "expected INPUT:DIM[=NAME]"),
    ("x:a", "'a' is not a dimension number"),
    ("x:0=9lives", "must be an identifier"),
])
def test_dynamic_syntax_errors_say_what_is_wrong(value, message):
    with pytest.raises(plan.PlanError, match=message.replace("[", r"\[").replace("]", r"\]")):
        plan.parse_dynamic([value])


def test_target_defaults_come_from_the_model_file_without_running_it():
    target = plan.make_target("tests/export_models/correct.py:make_model")
    assert target.inputs == "tests/export_models/correct.py:example_inputs"
    assert target.probes is None
    assert target.dynamic == {"x": {0: "batch"}}
    assert target.exporters == ("dynamo",)


def test_two_exporters_write_two_files():
    target = plan.make_target("tests/export_models/correct.py:make_model", exporters=("legacy", "dynamo"), output="out/m.onnx")
    assert target.exporters == ("dynamo", "legacy")
    assert [target.output_for(e) for e in target.exporters] == ["out/m.dynamo.onnx", "out/m.legacy.onnx"]


def _config(export: dict, tmp_path: Path):
    return settings_from_table({"exporters": ["dynamo", "legacy"], "export": export}, tmp_path / "pyproject.toml", rule_selectors)


def test_config_targets_are_relative_to_the_config(tmp_path):
    (tmp_path / "m.py").write_text("def make():\n    pass\n\ndef example_inputs():\n    return ()\n")
    settings = _config({"opset": 18, "targets": [
        {"model": "m.py:make", "dynamic": ["0:0=batch"], "name": "m"},
        {"model": "m.py:make", "exporters": ["legacy"], "output": "m.onnx"},
        {"model": "m.py:make", "exporters": "Both"},  # as [tool.onnxfix] exporters and --exporter take it
    ]}, tmp_path)
    first, second, third = plan.targets_from_config(settings)
    assert third.exporters == ("dynamo", "legacy")
    assert (first.name, first.model, first.inputs, first.exporters, first.opset, first.dynamic) == (
        "m", f"{tmp_path}/m.py:make", f"{tmp_path}/m.py:example_inputs", ("dynamo", "legacy"), 18, {"0": {0: "batch"}},
    )
    assert (second.exporters, second.output) == (("legacy",), str(tmp_path / "m.onnx"))


@pytest.mark.parametrize("export, message", [
    ({"target": []}, "unknown key(s) in [tool.onnxfix.export]: target"),
    ({"targets": {"model": "m.py:make"}}, "targets must be an array of tables"),
    ({"targets": [{"inputs": "m.py:example_inputs"}]}, "#1: model = \"path/to/file.py:factory\" is required"),
    ({"targets": [{"model": "m.py:make", "exporter": "dynamo"}]}, "unknown key(s) in [[tool.onnxfix.export.targets]] #1: exporter"),
    ({"targets": [{"model": "m.py:make", "exporters": ["onnx"]}]}, "invalid value 'onnx' for [[tool.onnxfix.export.targets]] #1 exporters: expected dynamo, legacy or both"),
    ({"targets": [{"model": "m.py:make", "exporters": [1]}]}, "exporters: expected a list of ['dynamo', 'legacy'] (or \"both\")"),
    ({"targets": [{"model": "gone.py:make"}]}, "gone.py: no such file"),
    ({"opset": "18", "targets": []}, "opset must be a positive integer"),
])
def test_bad_config_is_a_clear_error(export, message, tmp_path):
    (tmp_path / "m.py").write_text("def make():\n    pass\n\ndef example_inputs():\n    return ()\n")
    with pytest.raises(ConfigError) as caught:
        plan.targets_from_config(_config(export, tmp_path))
    assert message in str(caught.value)
    assert str(caught.value).startswith(str(tmp_path / "pyproject.toml"))


@pytest.mark.parametrize("argv, message", [
    (["nope.py:make_model"], "error: TARGET: nope.py: no such file"),
    (["tests/export_models/correct.py:make_model", "--dynamic", "x"], "error: --dynamic 'x': expected"),
    (["tests/export_models/inverse.py:Whiten", "--inputs", "tests/export_models/inverse.py"], "error: inputs: expected path/to/file.py:callable"),
    ([], "error: no TARGET given and no [[tool.onnxfix.export.targets]] configured"),
])
def test_usage_errors_exit_2_before_running_anything(argv, message, capsys):
    assert cli_main(["export", *argv]) == 2
    assert capsys.readouterr().err.startswith(message)


def test_export_help_says_it_runs_user_code():
    text = subprocess.run([sys.executable, "-m", "onnxfix", "export", "--help"], capture_output=True, text=True, check=True).stdout
    assert "IMPORTS AND RUNS YOUR CODE" in text


def test_parent_process_never_imports_torch():
    code = (
        "import sys; from onnxfix.exporter import cli, session, render, sourcemap, progress, plan;"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- ONX9xx codes -------------------------------------------------------------------------

def test_export_codes_are_documented_and_not_static_rules(capsys):
    static = {r.code for r in all_rules()}
    for code in CODES:
        assert code.code.startswith("ONX9") and code.code not in static
        assert set(code.fixed_by) <= static, f"{code.code} links to unknown rules"
    assert cli_main(["rule", "ONX940"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# ONX940 (silently-wrong)\n\nExport-time finding (from `onnxfix export`)")
    assert "Usually fixed by: ONX201, ONX301" in text


# ---- source mapping on recorded exporter output --------------------------------------------

BAKES = str(MODELS / "bakes_size.py")
TORCH_FILE = "/venv/lib/python3.11/site-packages/torch/onnx/utils.py"


def _static():
    from onnxfix.rewriter.runner import run

    return run([Path(BAKES)], "check", exporters=frozenset({"dynamo", "legacy"})).findings


def test_tracer_warnings_map_to_the_user_line_and_the_fixing_rule():
    verdict = Verdict("legacy", "SILENTLY-WRONG", failing_probe="probe 1 (user)", failed_stage="numerics", warnings=[
        {"category": "TracerWarning", "message": "Converting a tensor to a Python number might cause the trace to be incorrect. We can't record", "filename": BAKES, "lineno": 12},
        {"category": "UserWarning", "message": "internal", "filename": TORCH_FILE, "lineno": 3},
    ], probes=[ProbeResult("export inputs"), ProbeResult("probe 1 (user)", ok=False, note="output 0: shape (2, 3), expected (2, 4)",
                                                         outputs=[OutputError(0, None, None, False, "shape (2, 3), expected (2, 4)")])])
    found = findings_for(verdict, anchor(Path(BAKES), "ChunkMean"), _static())
    assert [render.finding_line(f) for f in found] == [
        "tests/export_models/bakes_size.py:12:40: ONX901 [legacy] TracerWarning: Converting a tensor to a Python number "
        "(now a constant in the trace) (fixed by ONX201 at tests/export_models/bakes_size.py:12)",
        "tests/export_models/bakes_size.py:10:1: ONX940 [legacy] ONNX output differs from PyTorch on probe 1 (user): "
        "output 0: shape (2, 3), expected (2, 4) (likely fixed by ONX201 at tests/export_models/bakes_size.py:12)",
    ]


def test_torchscript_node_range_and_crash_dump_point_at_user_lines():
    ts_range = f"{TORCH_FILE}(40): linear\n{BAKES}(12): forward\n{TORCH_FILE}(1): _call_impl\n"
    failed = Verdict("legacy", "EXPORT-FAILS", failed_stage="export",
                     error="UnsupportedOperatorError: Exporting the operator 'aten::x' to ONNX opset version 20 is not supported",
                     node_traces=[NodeTrace("aten::x", ts_range, "ts")])
    crash = Verdict("dynamo", "CRASH", failed_stage="export", error=(
        "the exporter process died (segmentation fault) during export\nFatal Python error: Segmentation fault\n\n"
        f'Current thread 0x1 (most recent call first):\n  File "{TORCH_FILE}", line 9 in export\n'
        f'  File "{BAKES}", line 13 in forward\n  File "{BAKES}", line 12 in forward\n'))
    fallback = Location(BAKES, 1)
    lines = [render.finding_line(f) for v in (failed, crash) for f in findings_for(v, fallback, [])]
    assert lines == [
        "tests/export_models/bakes_size.py:12:1: ONX920 [legacy] UnsupportedOperatorError: Exporting the operator 'aten::x' to ONNX opset version 20 is not supported",
        "tests/export_models/bakes_size.py:13:1: ONX930 [dynamo] the exporter process died (segmentation fault) during export",
    ]


# ---- JSON shape (documented in docs/export-cmd.md) -----------------------------------------

def test_json_report_shape_is_stable():
    target = plan.make_target("tests/export_models/correct.py:make_model")
    verdict = Verdict("dynamo", "OK", probes=[ProbeResult("export inputs", 0.0, 0.0, True, "", [OutputError(0, 0.0, 0.0, True)])],
                      op_histogram={"Gemm": 1}, onnx_path="/tmp/m.onnx", seconds=1.25)
    document = json.loads(render.json_report([TargetResult(target, [ExporterResult(verdict)])], 0))
    assert list(document) == ["schema_version", "ok", "exit_code", "targets"]
    (entry,) = document["targets"]
    assert list(entry) == ["name", "model", "inputs", "probe_inputs", "dynamic", "exporters", "opset", "ok", "results", "static_findings", "decompose_hint", "fix"]
    assert entry["decompose_hint"] == []  # an OK export needs no decomposition
    (result,) = entry["results"]
    assert result == {
        "exporter": "dynamo", "verdict": "OK",
        "stages": {"load": "ok", "export": "ok", "checker": "ok", "runtime": "ok", "numerics": "ok"},
        "failing_probe": None, "error": None, "seconds": 1.25, "onnx_path": "/tmp/m.onnx", "layout": None,
        "probes": [{"probe": "export inputs", "ok": True, "max_abs": 0.0, "max_rel": 0.0, "note": None,
                    "outputs": [{"index": 0, "ok": True, "max_abs": 0.0, "max_rel": 0.0, "note": None}]}],
        "op_histogram": {"Gemm": 1}, "findings": [],
    }
    assert entry["dynamic"] == {"x": {"0": "batch"}}


def test_stage_checklist_marks_later_stages_skipped():
    verdict = Verdict("dynamo", "ORT-FAILS", failed_stage="runtime")
    assert verdict.stages() == {"load": "ok", "export": "ok", "checker": "ok", "runtime": "failed", "numerics": "skipped"}
    assert render.checklist(verdict) == "load ok  export ok  checker ok  runtime FAILED  numerics -"


def test_pre_commit_hook_runs_the_configured_targets():
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    hook = hooks["onnxfix-export"]
    assert (hook["entry"], hook["pass_filenames"]) == ("onnxfix export --no-progress", False)


@pytest.mark.parametrize("error, code", [
    ("ConversionError: Failed to convert\n  <- DispatchError: No ONNX function found for <OpOverload(op='aten.x')>", "ONX920"),
    ("TorchExportError: Failed to export the model with torch.export.\n  <- RuntimeError: We found a fake tensor in the exported program constant's list.", "ONX912"),
    ("TorchExportError: Failed to export the model with torch.export.\n  <- RuntimeError: .numpy() is not supported for tensor subclasses.", "ONX911"),
    ("TorchExportError: Failed to export the model with torch.export.\n  <- GuardOnDataDependentSymNode: Could not guard", "ONX913"),
    ("TorchExportError: Failed to export the model with torch.export.\n  <- RuntimeError: Could not extract specialized integer from data-dependent expression u0", "ONX913"),
    ("TorchExportError: Failed to export the model with torch.export.\n  <- RuntimeError: Dynamic control flow is not supported", "ONX910"),
    ("ConversionError: Failed to decompose the FX graph\n  <- RuntimeError: boom", "ONX921"),
    ("ValueError: something else", "ONX922"),
])
def test_export_errors_are_classified(error, code):
    verdict = Verdict("dynamo", "EXPORT-FAILS", failed_stage="export", error=error)
    (finding,) = findings_for(verdict, Location(BAKES, 1), [])
    assert finding.code == code
    # a data-dependent guard no static rule fixes names the way out (this line is not a branch)
    advice = "; keep the value a tensor (no .item(), .tolist(), int() or float() of it) so the graph computes with it"
    assert finding.message == error.split("\n  <- ")[-1].strip() + (advice if code == "ONX913" else "")


def _report_results():
    from onnxfix.exporter.locations import ExportFinding, StaticLink
    from onnxfix.exporter.session import FixResult

    target = plan.make_target("tests/export_models/bakes_size.py:ChunkMean", exporters=("legacy",))
    probes = [ProbeResult("export inputs", 0.0, 0.0, True, "", [OutputError(0, 0.0, 0.0, True)]),
              ProbeResult("probe 1 (user)", 2.5, 1.0, False, "", [OutputError(0, 2.5, 1.0, False, "<b>&")])]
    verdict = Verdict("legacy", "SILENTLY-WRONG", failing_probe="probe 1 (user)", failed_stage="numerics",
                      probes=probes, op_histogram={"Reshape": 1, "ReduceMean": 1, "Shape": 2}, seconds=1.5)
    path = str((MODELS / "bakes_size.py").resolve())
    finding = ExportFinding("ONX901", "TracerWarning: <converted>", Location(path, 12, 40), "legacy",
                            [StaticLink("ONX301", path, 12)])
    after = Verdict("legacy", "OK", probes=probes[:1], seconds=1.0)
    diff = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-old <x>\n+new & y\n"
    fix = FixResult("temporary", diff, 1, [ExporterResult(after)])
    return [TargetResult(target, [ExporterResult(verdict, [finding])], fix=fix)]


def test_html_report_tables_excerpt_and_fix():
    page = render_html.html_report(_report_results())
    parsed = _Tables()
    parsed.feed(page)
    assert page.startswith("<!doctype html>")
    assert parsed.tables["verdicts"] == [[
        ["exporter", "verdict", "load", "export", "checker", "runtime", "numerics", "seconds", "detail"],
        ["legacy", "SILENTLY-WRONG", "ok", "ok", "ok", "ok", "FAILED", "1.5", "first wrong on probe 1 (user): output 0: max abs error 2.5"],
    ]]
    assert parsed.tables["findings"] == [[
        ["code", "exporter", "location", "message", "fixed by"],
        ["ONX901", "legacy", "tests/export_models/bakes_size.py:12:40", "TracerWarning: <converted>", "ONX301 at tests/export_models/bakes_size.py:12"],
    ]]
    header = ["input", "output", "max abs error", "max rel error", "ok", "note"]
    assert parsed.tables["inputs"] == [
        [header, ["export inputs", "0", "0", "0", "yes", ""], ["probe 1 (user)", "0", "2.5", "1", "NO", "<b>&"]],
        [header, ["export inputs", "0", "0", "0", "yes", ""]],  # after the fix
    ]
    assert parsed.tables["ops"] == [[["ONNX operator", "count"], ["Shape", "2"], ["ReduceMean", "1"], ["Reshape", "1"]]]
    assert parsed.tables["fix"] == [[["exporter", "before", "after"], ["legacy", "SILENTLY-WRONG", "OK"]]]
    source = (MODELS / "bakes_size.py").read_text().splitlines()
    # lines 9 to 15: 3 on each side of the root line 12
    assert "".join(f"{n:>5}  {source[n - 1]}\n" for n in range(9, 16)) == parsed.pres[0]
    assert '<span class="root">   12          pieces = x.reshape(x.shape[0], chunks.item(), -1)</span>' in page
    assert "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-old <x>\n+new & y" in parsed.pres
    # self-contained and escaped: no script, nothing fetched, user text never becomes markup
    assert {tag for tag, _ in parsed.tags} <= {"html", "head", "meta", "title", "style", "body", "div", "h1", "h2", "h3",
                                                 "p", "b", "code", "table", "thead", "tbody", "tr", "th", "td", "span", "pre"}
    assert not any(key in ("src", "href") for _, attrs in parsed.tags for key in attrs)
    assert "<converted>" not in page and "&lt;converted&gt;" in page


def test_html_fragment_is_the_report_body_for_notebooks():
    fragment = render_html.html_fragment(_report_results())
    assert fragment.startswith('<div class="onnxfix">\n<style>') and fragment.endswith("<p><b>1 of 1 export(s) OK.</b></p></div>")
    assert "<html" not in fragment and "SILENTLY-WRONG" in fragment


def test_markdown_report_escapes_nothing_and_keeps_its_tables():
    target = plan.make_target("tests/export_models/correct.py:make_model")
    verdict = Verdict("dynamo", "EXPORT-FAILS", failed_stage="export", error="RuntimeError: a <b> & c")
    results = [TargetResult(target, [ExporterResult(verdict)])]
    assert "| dynamo | **EXPORT-FAILS** | ok | FAILED | - | - | - |" in render.markdown_report(results)
    assert "RuntimeError: a &lt;b&gt; &amp; c" in render_html.html_report(results)

def test_markdown_report_starts_with_a_summary_and_survives_backticks():
    target = plan.make_target("tests/export_models/correct.py:make_model")
    target = dataclasses.replace(target, dynamic={"x": {0: "batch", 2: "seq"}})
    failed = Verdict("legacy", "ORT-FAILS", failed_stage="runtime", error="onnxruntime: shape")
    results = [TargetResult(target, [ExporterResult(Verdict("dynamo", "OK")), ExporterResult(failed)])]
    report = render.markdown_report(results)
    assert report.splitlines()[2:5] == [
        "| target | dynamo | legacy |", "|---|---|---|", f"| {target.name} | OK | ORT-FAILS |",
    ]
    assert "- dynamic: x: dim 0 (batch), dim 2 (seq)" in report
    assert render.code_span("uses `x.data` here") == "``uses `x.data` here``"
    assert render.code_span("`x`") == "`` `x` ``"
    assert render.code_span("plain") == "`plain`"


def test_errors_name_the_model_file_not_onnxfix_private_module(tmp_path):
    from onnxfix.exporter.errors import describe
    from onnxfix.exporter.targets import load_module

    (tmp_path / "my_model.py").write_text("class M:\n    pass\n")
    module = load_module(tmp_path / "my_model.py")
    text = describe(TypeError(f"cannot use {module.M!r}"))
    assert text == "TypeError: cannot use <class 'my_model.M'>"


def test_tracer_warnings_are_cut_at_a_sentence_end():
    from onnxfix.exporter.sourcemap import first_sentence

    assert first_sentence(
        "torch.tensor results are registered as constants in the trace. You can safely ignore this warning if you "
        "use this function to create tensors out of constant variables that would be the same every time you call "
        "this function. In any other case, this might cause the trace to be incorrect."
    ) == "torch.tensor results are registered as constants in the trace"
    assert first_sentence(
        "Converting a tensor to a Python integer might cause the trace to be incorrect. We can't record the data "
        "flow of Python values, so this value will be treated as a constant in the future."
    ) == "Converting a tensor to a Python integer (now a constant in the trace)"
