"""Run-time evidence makes fixes safe (or possible) that static analysis must leave unsafe or
absent (issue 12, item 3). Models: tests/evidence_models/.

For every case: without evidence the static rules give the recorded (code, line, fix safety);
with the evidence one eager run left, the fix is safe; `export --fix` (both exporters) applies
it, both exporters are OK on the export inputs, the user's probes (other sizes) and generated
inputs (re-drawn values, other sizes of dynamic dims); and the fixed model computes exactly
(torch.equal) what the original computes on those inputs.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
import torch

from onnxfix.cli import main as cli_main
from onnxfix.exporter import plan
from onnxfix.exporter.evidence_worker import record
from onnxfix.exporter.session import FIX_TEMPORARY, NoProgress, run_target
from onnxfix.exporter.targets import load_module
from onnxfix.rewriter import evidence
from onnxfix.rewriter.runner import run

REPO = Path(__file__).resolve().parent.parent
MODELS = "tests/evidence_models"

# file: (class, static findings (code, line, fix safety or None), the fixed line: before, after)
CASES = {
    "data_param": ("DataParam", [("ONX301", 14, "unsafe")],
                   ("return self.fc(x.data) + 1", "return self.fc(x.detach()) + 1")),
    "data_local": ("DataLocal", [("ONX301", 23, "unsafe")],
                   ("return h.data * 2 + x", "return h.detach() * 2 + x")),
    "data_helper": ("DataHelper", [("ONX301", 8, "safe")],  # safe statically since sizes/tensors are resolved across calls
                    ("return t.data - t.mean()", "return t.detach() - t.mean()")),
    "len_param": ("LenParam", [],
                  ("return x[: len(x) - 1] * len(x)", "return x[: x.shape[0] - 1] * x.shape[0]")),
    "item_name": ("ScaledLinear", [("ONX201", 14, "unsafe")], ("s = scale.item()", "s = scale")),
    "item_direct": ("ItemDirect", [("ONX201", 13, "unsafe")],
                    ("return self.fc(x) * scale.item()", "return self.fc(x) * scale")),
    "item_operand": ("ItemOperand", [("ONX201", 9, None)], ("y = x - s.item()", "y = x - s")),
    "float_cast": ("FloatCast", [],
                   ("return torch.tanh(x) / float(scale)", "return torch.tanh(x) / scale")),
    # statically safe too, in another form: the tensor while tracing only (`(gain if
    # torch.jit.is_tracing() else float(gain))`); the run proves the plain one exact
    "float_name": ("FloatName", [("ONX203", 14, "safe")], ("k = float(gain)", "k = gain")),
    "int_size": ("IntSize", [("ONX203", 10, "unsafe")],  # `.long()` of a tensor maybe float: unsafe
                 ("return x.reshape(x.shape[0], int(n), -1).sum(-1)", "return x.reshape(x.shape[0], n, -1).sum(-1)")),
    "int_size_name": ("GridSize", [("ONX203", 12, "unsafe")], ("feat_h = int(h)", "feat_h = h")),
    "narrow_slice_bound": ("NarrowBound", [], (
        "return x[:, :1] + self.pe[:, start:end].sum(1, keepdim=True)",
        "return x[:, :1] + self.pe[:, start.long():end.long()].sum(1, keepdim=True)")),
    # the run saw None and tensors in `pooled_pos`, only tensors past its `if ... is None:` default
    "len_none_default": ("RelativePositions", [], (
        "num_remove = shift * len(pooled_pos)", "num_remove = shift * pooled_pos.shape[0]")),
    "mask_write_helper": ("MaskWriteHelper", [], (
        "tensor[indices] = value",
        "tensor.masked_fill_(indices.view(indices.shape + (1,) * (tensor.dim() - indices.dim())), value)")),
}
EVIDENCE_FINDINGS = {  # with evidence: every finding above, its fix safe (ONX204 twice on one line)
    "len_param": [("ONX204", 10, "safe"), ("ONX204", 10, "safe")],
    "float_cast": [("ONX203", 9, "safe")],
    "mask_write_helper": [("ONX705", 11, "safe")],
    "len_none_default": [("ONX204", 14, "safe")],
    "narrow_slice_bound": [("ONX707", 17, "safe")],  # the run saw int32 0-d bounds  # the run saw a bool mask, a float32 tensor, an int
}


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _findings(path: str, folder: str | None) -> list[tuple]:
    result = run([Path(path)], "check", use_cache=False, exporters=frozenset({"dynamo", "legacy"}), evidence_dir=folder)
    return [(f.code, f.line, f.fix.applicability if f.fix else None) for r in result.files for f in r.findings]


@pytest.mark.parametrize("name", CASES)
def test_evidence_turns_the_static_fix_safe(name, tmp_path):
    cls, static, _ = CASES[name]
    path = f"{MODELS}/{name}.py"
    assert _findings(path, None) == static
    assert record(f"{path}:{cls}", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 2 if name in (
        "data_local", "data_helper", "int_size_name", "mask_write_helper", "len_none_default") else 1}
    expected = EVIDENCE_FINDINGS.get(name, [(code, line, "safe") for code, line, _ in static])
    assert _findings(path, str(tmp_path)) == expected


def test_evidence_of_other_text_is_not_read(tmp_path):
    """Keyed by content: one changed character and the rules are static again."""
    path = f"{MODELS}/data_param.py"
    record(f"{path}:DataParam", f"{path}:example_inputs", tmp_path)
    copy = tmp_path / "data_param.py"
    copy.write_text(Path(path).read_text().replace("+ 1", "+ 2"))
    assert _findings(str(copy), str(tmp_path)) == [("ONX301", 14, "unsafe")]


def test_evidence_file_records_types_and_lines(tmp_path):
    path = f"{MODELS}/item_name.py"
    record(f"{path}:ScaledLinear", f"{path}:example_inputs", tmp_path)
    loaded = evidence.load(str(tmp_path), Path(path).read_text())
    forward = loaded.functions[("forward", 13)]
    tensor = evidence.Value("tensor", "float32", 0, "cpu")
    assert (forward.calls, sorted(forward.lines)) == (1, [14, 15])
    assert forward.names["scale"] == {tensor}
    assert forward.names["s"] == {evidence.Value("float")}
    assert forward.names["x"] == {evidence.Value("tensor", "float32", 2, "cpu")}
    assert forward.returns == {15: frozenset({evidence.Value("tensor", "float32", 2, "cpu")})}


def _eager_identical(name: str, cls: str, fixed_text: str) -> int:
    """Original and fixed model: the same outputs, bit for bit, on the example, the probes and
    re-drawn values at other sizes (every float input redrawn with several seeds)."""
    original = load_module(REPO / MODELS / f"{name}.py")
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / f"fixed_{name}.py"
        copy.write_text(fixed_text)
        fixed = load_module(copy)
    inputs = [original.example_inputs(), *original.probe_inputs()]
    for seed in range(4):
        torch.manual_seed(seed)
        inputs += [tuple(torch.randn_like(a) * (seed + 1) if a.is_floating_point() else a for a in args)
                   for args in list(inputs[: 1 + len(original.probe_inputs())])]
    for args in inputs:
        torch.manual_seed(0)
        before = getattr(original, cls)().eval()
        torch.manual_seed(0)
        after = getattr(fixed, cls)().eval()
        with torch.no_grad():
            expected, actual = before(*args), after(*args)
        assert expected.dtype == actual.dtype and torch.equal(expected, actual), (name, args)
    return len(inputs)


def _changed_lines(diff: str) -> tuple[str, str]:
    removed = [l[1:].strip() for l in diff.splitlines() if l.startswith("-") and not l.startswith("---")]
    added = [l[1:].strip() for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
    return removed, added


SLOW = [n for n in CASES if n != "item_name"]


@pytest.mark.parametrize("name", SLOW)
def test_export_fix_applies_the_evidence_fix_and_both_exporters_are_ok(name):
    cls, _, (before, after) = CASES[name]
    target = plan.make_target(f"{MODELS}/{name}.py:{cls}", exporters=("dynamo", "legacy"))
    outcome = run_target(target, NoProgress(), FIX_TEMPORARY, False).fix  # the fix loop, after the first exports
    assert outcome.evidence["files"] == 1 and outcome.error == ""
    assert _changed_lines(outcome.diff) == ([before], [after])
    for result in outcome.results:
        verdict = result.verdict
        probes = [p.probe for p in verdict.probes]
        assert (verdict.exporter, verdict.verdict) == (verdict.exporter, "OK"), verdict.error
        assert probes[:2] == ["export inputs", "probe 1 (user)"] and "generated (other values)" in probes
    assert _eager_identical(name, cls, _fixed_text(name, before, after)) == 10


def _fixed_text(name: str, before: str, after: str) -> str:
    lines = (REPO / MODELS / f"{name}.py").read_text().splitlines(keepends=True)
    code = [i for i, line in enumerate(lines) if line.strip() == before]  # not the docstring quoting it
    assert len(code) == 1
    lines[code[0]] = lines[code[0]].replace(before, after)
    return "".join(lines)


def test_issue_model_exits_0_after_export_fix(capsys):
    """The issue's `s = scale.item(); return self.fc(x) * s`: SILENTLY-WRONG under legacy,
    "no safe static fix applies" before; with evidence the fix applies and the command exits 0."""
    code = cli_main(["export", f"{MODELS}/item_name.py:ScaledLinear", "--exporter", "both", "--fix",
                     "--format", "json", "--no-progress"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert code == 0
    assert [(r["exporter"], r["verdict"]) for r in target["results"]] == [("dynamo", "OK"), ("legacy", "SILENTLY-WRONG")]
    assert [(r["exporter"], r["verdict"]) for r in target["fix"]["results"]] == [("dynamo", "OK"), ("legacy", "OK")]
    assert target["fix"]["evidence"] == {"files": 1, "functions": 1}
    assert _changed_lines(target["fix"]["diff"]) == (["s = scale.item()"], ["s = scale"])
    cls, _, (before, after) = CASES["item_name"]
    assert _eager_identical("item_name", cls, _fixed_text("item_name", before, after)) == 10


def test_evidence_that_proves_nothing_changes_nothing(tmp_path):
    """`n / t` runs as `t.reciprocal() * n` (other rounding); a float16 result is not the 0-d
    float32's dtype; a PackedSequence has a `.data` and no `.detach()`: still unsafe."""
    path = f"{MODELS}/not_proven.py"
    static = [("ONX201", 14, "unsafe"), ("ONX201", 15, "unsafe"), ("ONX301", 16, "unsafe")]
    assert _findings(path, None) == static
    assert record(f"{path}:NotProven", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 1}
    forward = evidence.load(str(tmp_path), Path(path).read_text()).functions[("forward", 13)]
    assert forward.names["packed"] == {evidence.Value("other", type="torch.nn.utils.rnn.PackedSequence")}
    assert forward.names["b"] == {evidence.Value("tensor", "float16", 2, "cpu")}
    assert _findings(path, str(tmp_path)) == static


def test_text_report_says_what_the_recorded_run_gave():
    from onnxfix.exporter import render
    from onnxfix.exporter.session import FixResult, TargetResult

    target = plan.make_target(f"{MODELS}/data_param.py:DataParam", exporters=("legacy",))
    recorded = TargetResult(target, fix=FixResult("temporary", evidence={"files": 1, "functions": 2}))
    failed = TargetResult(target, fix=FixResult("temporary", evidence={"error": "RuntimeError: boom\n  <- ValueError: bad"}))
    assert render._fix_lines(recorded) == [
        "  --fix: run-time evidence from one eager run: 2 function(s) in 1 file(s)",
        "  --fix: no static fix applies; verdicts unchanged",
    ]
    assert render._fix_lines(failed)[0] == "  --fix: no run-time evidence (the eager run failed: ValueError: bad)"


def test_docs_data_pitfall_on_two_lines_exits_0_after_export_fix(tmp_path, monkeypatch, capsys):
    """Issue 26: `gate = torch.sigmoid(x.data); return x * gate + self.scale.data`. The fix loop
    keeps `self.scale.data`'s fix first (statically safe); `x.data`'s fix, safe only by the
    evidence of the unedited file, must stay safe after it. Run as a user would, on a copy."""
    copy = tmp_path / "data_gate.py"
    copy.write_text((REPO / MODELS / "data_gate.py").read_text())
    monkeypatch.setenv("ONNXFIX_CACHE_DIR", str(tmp_path / "cache"))
    code = cli_main(["export", f"{copy}:make_model", "--exporter", "both", "--fix", "--format", "json",
                     "--no-progress"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert code == 0
    assert [r["verdict"] for r in target["results"]] != ["OK", "OK"]
    assert [(r["exporter"], r["verdict"]) for r in target["fix"]["results"]] == [("dynamo", "OK"), ("legacy", "OK")]
    assert target["fix"]["evidence"] == {"files": 1, "functions": 1}
    assert _changed_lines(target["fix"]["diff"]) == (
        ["gate = torch.sigmoid(x.data)", "return x * gate + self.scale.data"],
        ["gate = torch.sigmoid(x.detach())", "return x * gate + self.scale.detach()"],
    )
    assert copy.read_text() == (REPO / MODELS / "data_gate.py").read_text()  # --fix writes nothing
    fixed = _fixed_text("data_gate", "gate = torch.sigmoid(x.data)", "gate = torch.sigmoid(x.detach())")
    fixed = fixed.replace("return x * gate + self.scale.data", "return x * gate + self.scale.detach()")
    assert _eager_identical("data_gate", "DataGate", fixed) == 10


def test_fixes_uncovered_by_a_kept_fix_are_found_by_a_run_of_the_kept_text(tmp_path, monkeypatch, capsys):
    """CenterPoint's QAT (tests/realworld): `_tensor_quant` runs only through an autograd
    Function, so only a run shows it is reached. Dropping `if min_amax <= epsilon:` (ONX601)
    leaves `scale[zero_amax_mask] = 0` bare, which torch.export then fails on (a 0-d mask); the
    kept text is a new text, with no evidence of the first run: the loop runs it again, and the
    write's masked_fill_ (ONX705) and the second guard's drop follow. Eager: bit for bit."""
    case = REPO / "tests" / "realworld" / "centerpoint_pfe_qat_fake_tensor_quant_function.py"
    copy = tmp_path / case.name
    copy.write_text(case.read_text())
    monkeypatch.setenv("ONNXFIX_CACHE_DIR", str(tmp_path / "cache"))
    code = cli_main(["export", f"{copy}:make_model", "--exporter", "both", "--write", "--unsafe-fixes",
                     "--format", "json", "--no-progress"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert code == 0
    assert [(r["exporter"], r["verdict"]) for r in target["results"]] == [("dynamo", "EXPORT-FAILS"), ("legacy", "OK")]
    assert [(r["exporter"], r["verdict"]) for r in target["fix"]["results"]] == [("dynamo", "OK"), ("legacy", "OK")]
    fill = "scale.masked_fill_(zero_amax_mask.view(zero_amax_mask.shape + (1,) * (scale.dim() - zero_amax_mask.dim())), {})"
    removed, added = _changed_lines(target["fix"]["diff"])
    assert added[-3:] == ["zero_amax_mask = (amax <= epsilon)", fill.format("0"), fill.format("1.")]
    assert "if min_amax <= epsilon:" not in "\n".join(added) and removed.count("if min_amax <= epsilon:") == 1
    fixed = load_module(copy)  # written in place
    original = load_module(case)
    for args in [original.example_inputs(), *original.other_inputs()]:
        torch.manual_seed(0)
        before = original.make_model()
        torch.manual_seed(0)
        after = fixed.make_model()
        with torch.no_grad():
            assert torch.equal(before(*args), after(*args))



@pytest.mark.parametrize("dtype, fits", [("float32", True), ("float64", True), ("int64", True), ("bool", True),
                                         ("float16", False), ("bfloat16", False), (None, False)])
def test_a_number_in_a_name_is_written_by_masked_fill_only_where_no_dtype_refuses_it(dtype, fits):
    """`x[m] = v` stores inf for a v beyond a float16/bfloat16 tensor's range, `masked_fill_`
    raises there (float32 stores inf both ways): ONX705 fixes a number held in a name only for a
    tensor the run saw with another dtype."""
    import ast

    from onnxfix.patterns.indexing.masks import _fits_float16

    assert _fits_float16(ast.Name("value"), dtype) is fits
    for literal, expected in (("0.0", True), ("-1e9", False)):
        assert _fits_float16(ast.parse(literal, mode="eval").body, dtype) is expected
