"""`onnxfix export` end to end: real exports in worker processes, on tests/export_models/.

Exports are slow (seconds each), so each model is exported once per module (fixtures with
scope="module") and every assertion about it reads that one result.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from export_cli import MODELS, REPO, cli_json
from onnxfix.exporter import plan, render
from onnxfix.exporter.session import FIX_TEMPORARY, NoProgress, run_target

TOLERANCE = 1e-4


pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def _lines(result) -> list[str]:
    return [render.finding_line(f) for r in result for f in r.findings]


# ---- a value the legacy exporter bakes in: SILENTLY-WRONG at the line, OK after --fix ------

@pytest.fixture(scope="module")
def baked():
    target = plan.make_target("tests/export_models/bakes_size.py:ChunkMean", exporters=("legacy",))
    original = (MODELS / "bakes_size.py").read_text()
    result = run_target(target, NoProgress(), fix=FIX_TEMPORARY, unsafe_fixes=False)
    assert (MODELS / "bakes_size.py").read_text() == original, "--fix must not touch the file"
    return result


def test_baked_value_is_silently_wrong_at_the_offending_line(baked):
    (before,) = baked.results
    assert (before.verdict.verdict, before.verdict.failing_probe) == ("SILENTLY-WRONG", "probe 1 (user)")
    assert before.verdict.probes[0].probe == "export inputs" and before.verdict.probes[0].ok
    assert _lines(baked.results) == [
        "tests/export_models/bakes_size.py:12:40: ONX901 [legacy] TracerWarning: Converting a tensor to a Python number "
        "(now a constant in the trace) (fixed by ONX201 at tests/export_models/bakes_size.py:12)",
        "tests/export_models/bakes_size.py:12:40: ONX945 [legacy] first value that differs from PyTorch on probe 1 (user): "
        "Reshape /Reshape: shape (2, 3, 4), expected (2, 4, 3) (fixed by ONX201 at tests/export_models/bakes_size.py:12)",
        "tests/export_models/bakes_size.py:10:1: ONX940 [legacy] ONNX output differs from PyTorch on probe 1 (user): "
        "output 0: shape (2, 3), expected (2, 4) (likely fixed by ONX201 at tests/export_models/bakes_size.py:12)",
    ]


def test_baked_value_is_ok_after_fix_on_inputs_never_exported(baked):
    (after,) = baked.fix.results
    assert after.verdict.verdict == "OK" and after.findings == []
    assert baked.fix.diff == (
        "--- a/tests/export_models/bakes_size.py\n+++ b/tests/export_models/bakes_size.py\n"
        "@@ -9,7 +9,7 @@\n \n class ChunkMean(nn.Module):\n"
        "     def forward(self, x: torch.Tensor, chunks: torch.Tensor) -> torch.Tensor:\n"
        "-        pieces = x.reshape(x.shape[0], chunks.item(), -1)\n"
        "+        pieces = x.reshape(x.shape[0], chunks, -1)\n"
        "         return pieces.mean(dim=-1)\n \n \n"
    )
    probes = {p.probe: p for p in after.verdict.probes}
    assert list(probes) == ["export inputs", "probe 1 (user)", "generated (other values)"]
    assert all(p.ok and p.max_abs <= TOLERANCE for p in probes.values())
    assert after.verdict.op_histogram["Reshape"] == 1


# ---- the dynamo exporter cannot capture: the user's file:line and the rule -------------------

def test_capture_failure_names_the_user_line_and_rule(capsys):
    code, document = cli_json(["tests/export_models/data_branch.py:Gate", "--exporter", "dynamo"], capsys)
    assert code == 1
    (result,) = document["targets"][0]["results"]
    assert (result["verdict"], result["stages"]["export"], result["stages"]["checker"]) == ("EXPORT-FAILS", "failed", "skipped")
    assert result["findings"] == [{
        "code": "ONX913", "name": "data-dependent-guard",
        "message": "GuardOnDataDependentSymNode: Could not guard on data-dependent expression zuf0 > 0.0 "
                   "(unhinted: zuf0 > 0.0).  (Size-like symbols: none) (zuf0 is a value read out of a tensor "
                   "at line 9: `if x.sum().item() > 0:`)",
        "exporter": "dynamo", "filename": "tests/export_models/data_branch.py", "location": {"row": 9, "column": 12},
        "fixed_by": [
            {"code": "ONX201", "filename": "tests/export_models/data_branch.py", "row": 9, "relation": "same-line",
             "fixable": False},
            {"code": "ONX601", "filename": "tests/export_models/data_branch.py", "row": 9, "relation": "same-line",
             "fixable": True},
        ],
    }]
    assert [f["code"] for f in document["targets"][0]["static_findings"]] == ["ONX201", "ONX601"]


def test_untranslatable_operator_maps_graph_nodes_to_the_user_line(capsys):
    code, document = cli_json(["tests/export_models/inverse.py:Whiten", "--exporter", "both"], capsys)
    assert code == 1
    dynamo, legacy = document["targets"][0]["results"]
    assert [(f["code"], f["exporter"], f["filename"], f["location"]["row"]) for f in dynamo["findings"] + legacy["findings"]] == [
        ("ONX920", "dynamo", "tests/export_models/inverse.py", 15),
        ("ONX920", "legacy", "tests/export_models/inverse.py", 15),
    ]
    assert dynamo["findings"][0]["message"].startswith("DispatchError: No ONNX function found for <OpOverload(op='aten.linalg_inv_ex'")
    assert legacy["findings"][0]["message"] == "UnsupportedOperatorError: Exporting the operator 'aten::linalg_inv' to ONNX opset version 20 is not supported"
    # the other channel of the ONX501 fix: the same decomposition applied at export time
    assert document["targets"][0]["decompose_hint"] == ["linalg_inv"]



def test_a_custom_op_is_decomposed_at_export_time(capsys):
    """transformers' grouped_mm_fallback (a torch.library op no exporter translates): the run
    names onnxfix's decomposition, and with it both exporters match PyTorch."""
    target = ["tests/export_models/moe_experts.py:Experts", "--inputs", "tests/export_models/moe_experts.py:example_inputs",
              "--exporter", "both"]
    code, document = cli_json(target, capsys)
    assert code == 1
    assert [r["verdict"] for r in document["targets"][0]["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    assert document["targets"][0]["decompose_hint"] == ["grouped_mm_fallback"]
    code, document = cli_json([*target, "--decompose-ops", "grouped_mm_fallback"], capsys)
    assert [r["verdict"] for r in document["targets"][0]["results"]] == ["OK", "OK"]


def test_fix_exports_with_the_named_decompositions_when_the_op_is_in_code_it_does_not_edit(capsys):
    """The failing op is in another file (as in a library): no source fix of the target's file
    reaches it, so `--fix` exports once more with the decomposition the run named, and says so."""
    code, document = cli_json(["tests/export_models/imported_inverse.py:Head", "--inputs",
                                "tests/export_models/imported_inverse.py:example_inputs", "--exporter", "both", "--fix"], capsys)
    (target,) = document["targets"]
    assert code == 0
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"], fix["fixes_applied"]) == (["linalg_inv"], "", 0)
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]


def test_a_decomposition_the_run_proved_is_written_at_the_users_call(capsys, tmp_path):
    """`enable_gqa=True` arrives through **kwargs: the static rules cannot see it, the legacy
    export fails, the run's decomposition repairs it, and --fix writes the helper at the call
    (no export-time help left); eager outputs stay identical."""
    import shutil

    import torch

    model = tmp_path / "gqa_kwargs.py"
    shutil.copy(MODELS / "gqa_kwargs.py", model)
    code, document = cli_json([f"{model}:make_model", "--inputs", f"{model}:example_inputs", "--dynamic", "0:0=batch",
                                "--exporter", "both", "--write"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["OK", "EXPORT-FAILS"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["decompositions_written"], fix["written"]) == ([], ["scaled_dot_product_attention"], True)
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]
    assert "return _onnx_scaled_dot_product_attention(q, k, v, **kwargs)" in model.read_text()
    before, after = _load(MODELS / "gqa_kwargs.py"), _load(model)
    args = before.example_inputs()
    assert torch.equal(before.make_model()(*args), after.make_model()(*args))


def test_fused_attention_kernels_are_turned_off_while_exporting_then_the_length_reshape_repaired(capsys):
    """The legacy exporter has no symbolic for the encoder layer's fused kernel; with the fast path
    off, the failure the export shows next names the packed in-projection's repair: both applied
    while exporting only, and the export matches PyTorch (which keeps the fused kernel) for other lengths."""
    spec = MODELS / "fastpath_encoder.py"
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                                "--dynamic", "0:0=batch,1=seq", "--exporter", "legacy", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "aten::_transformer_encoder_layer_fwd" in target["results"][0]["error"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"]) == (["mha_fastpath_off", "multi_head_attention_forward"], "")
    assert [r["verdict"] for r in fix["results"]] == ["OK"]


def test_a_bfloat16_model_is_computed_in_float32_at_export_time_and_its_bfloat16_output_is_read(capsys):
    """A bfloat16 block: onnxruntime has no bfloat16 kernel for its ops, and numpy no bfloat16
    type for its output (read through OrtValues); with float32_compute both exports match PyTorch
    within bfloat16's own rounding."""
    spec = MODELS / "bf16_encoder.py"
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                                "--dynamic", "0:0=batch,1=seq", "--exporter", "both", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["ORT-FAILS", "ORT-FAILS"]
    assert all("NOT_IMPLEMENTED" in r["error"] for r in target["results"])
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"]) == (["float32_compute"], "")
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]


def test_a_dtype_onnxruntime_has_no_kernel_for_is_computed_in_float32_at_export_time(capsys):
    """A float64 Conv: both exports load-fail in onnxruntime (NOT_IMPLEMENTED); the run names
    float32_compute, and the export with it matches PyTorch; the source is not edited."""
    code, document = cli_json([f"{MODELS / 'double_conv.py'}:make_model", "--inputs", f"{MODELS / 'double_conv.py'}:example_inputs",
                                "--dynamic", "0:0=batch", "--exporter", "both", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["ORT-FAILS", "ORT-FAILS"]
    assert "float32_compute" in target["decompose_hint"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["decompositions_written"], fix["diff"]) == (["float32_compute"], [], "")
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]


def test_a_failure_the_static_fixes_uncover_is_repaired_after_the_loop(tmp_path, capsys):
    """The inverse fails both exporters; ONX501's fix makes dynamo's model reach a Squeeze
    onnxruntime refuses, which the first run could not name: squeeze_dim is tried after the loop."""
    model = tmp_path / "revealed_squeeze.py"
    model.write_text((MODELS / "revealed_squeeze.py").read_text())
    code, document = cli_json([f"{model}:make_model", "--inputs", f"{model}:example_inputs",
                                "--dynamic", "0:0=batch", "--dynamic", "1:0=batch", "--exporter", "dynamo", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    fix = target["fix"]
    assert "squeeze_dim" in fix["decompositions"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]


def _load(path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"loaded_{abs(hash(str(path)))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_exporter_failure_names_the_decomposition_that_repairs_it():
    """T5's invalid view (torch.onnx's decomposition step drops a contiguous()): the hint is keyed
    on the failure, not on an operator the exporter lacks."""
    from onnxfix.exporter.plan import Target
    from onnxfix.exporter.result import Verdict
    from onnxfix.exporter.repair_candidates import decompositions_that_help
    from onnxfix.exporter.session import ExporterResult

    error = ("ConversionError: Failed to decompose the FX graph for ONNX compatibility.\n  <- ValueError: Cannot view a "
             "tensor with shape torch.Size([s72, s70, 4, 8]) and strides (32*s70, 8, 8*s70, 1) as a tensor with shape (s72, s70, 32)!")
    target = Target(name="t5", model="m.py:make_model", inputs="m.py:inputs")
    failed = [ExporterResult(Verdict("dynamo", "EXPORT-FAILS", error=error))]
    assert decompositions_that_help(target, failed, []) == ("contiguous",)
    assert decompositions_that_help(target, [ExporterResult(Verdict("dynamo", "OK"))], []) == ()
    # onnxruntime refusing the legacy exporter's Conv(auto_pad=SAME_UPPER) with dilations (a
    # Conv1d(padding="same", dilation=2) inside an nn.Sequential: no source call to rewrite)
    refused = ("InvalidArgument: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while "
               "running FusedConv node. Name:'/t1/f1/f1.0/Conv' Status Message: Dilation not supported for "
               "AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER.")
    assert decompositions_that_help(target, [ExporterResult(Verdict("legacy", "ORT-FAILS", error=refused))], []) == \
        ("conv_weight_shape", "conv1d")  # a layer's conv of any rank, and F.conv1d's own helper
    # an InstanceNorm2d(track_running_stats=True) layer in eval (StarGAN): batch_norm in eval
    refused = "SymbolicValueError: Unsupported: ONNX export of instance_norm training for unknown batch size."
    assert decompositions_that_help(target, [ExporterResult(Verdict("legacy", "EXPORT-FAILS", error=refused))], []) == \
        ("instance_norm",)
    # dynamo's Squeeze of an axis whose size is not 1 (torch's squeeze leaves it alone): kornia
    refused = ("Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:Node (node_squeeze) Op (Squeeze) "
               "[ShapeInferenceError] Dimension of input 2 must be 1 instead of 3")
    assert decompositions_that_help(target, [ExporterResult(Verdict("dynamo", "ORT-FAILS", error=refused))], []) == \
        ("squeeze_dim",)
    # a Gaussian kernel built in forward and reshaped with traced sizes (kornia's filter2d)
    refused = "SymbolicValueError: Unsupported: ONNX export of convolution for kernel of unknown shape."
    assert decompositions_that_help(target, [ExporterResult(Verdict("legacy", "EXPORT-FAILS", error=refused))], []) == \
        ("conv_weight_shape",)
    # attention on 3-D (batch, length, features) tensors: dynamo takes only 4-D ones
    refused = "AssertionError: only 4D query, key, and value are supported"
    assert decompositions_that_help(target, [ExporterResult(Verdict("dynamo", "EXPORT-FAILS", error=refused))], []) == \
        ("sdpa_batched_heads",)
    # nn.MultiheadAttention under legacy: the packed in-projection's length folded to the example's
    refused = ("Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Reshape node. "
               "Name:'/self_attn/Reshape_4' Status Message: reshape_helper.h:91 input_shape_size == "
               "requested_shape_size was false. The input tensor cannot be reshaped to the requested shape. "
               "Input shape:{7,3,16}, requested shape:{5,12,4}")
    assert decompositions_that_help(target, [ExporterResult(Verdict("legacy", "ORT-FAILS", error=refused))], []) == \
        ("multi_head_attention_forward",)
    # the legacy symbolic of an op refusing an argument it needs constant (UCM-Net's
    # `F.layer_norm(x, [H, W])`, H and W sizes passed down): the op the exporter was translating
    from onnxfix.exporter.result import NodeTrace
    refused = Verdict("legacy", "EXPORT-FAILS", error="SymbolicValueError: Failed to export a node ... because it is not constant.",
                      node_traces=[NodeTrace("aten::layer_norm", "m.py(29): forward", "ts")])
    assert decompositions_that_help(target, [ExporterResult(refused)], []) == ("layer_norm",)
    # an ATen op the legacy exporter names under another name than the function a model calls
    # (nn.Upsample(mode="nearest-exact") -> aten::_upsample_nearest_exact2d): F.interpolate's record
    refused = "UnsupportedOperatorError: Exporting the operator 'aten::_upsample_nearest_exact2d' to ONNX opset version 20 is not supported"
    assert decompositions_that_help(target, [ExporterResult(Verdict("legacy", "EXPORT-FAILS", error=refused))], []) == \
        ("interpolate",)
    # dynamo's uint8 right shift typed int8, then `& 15` with a uint8 operand: onnxruntime refuses the BitwiseAnd
    refused = ("Load model from m.onnx failed:Type Error: Type parameter (T) of Optype (BitwiseAnd) bound to "
               "different types (tensor(int8) and tensor(uint8) in node (node_bitwise_and).")
    assert "bitwise_right_shift" in decompositions_that_help(target, [ExporterResult(Verdict("dynamo", "ORT-FAILS", error=refused))], [])
    # an LSTM in a model whose dynamo export fails with a dynamic dim: torch.onnx's decompositions fix
    # the sequence length (no error names it: onnxruntime's Reshape by the time dim fails)
    failed = Verdict("dynamo", "ORT-FAILS", error="Fail: Non-zero status code returned while running Reshape node.",
                     recurrent_layers=["LSTM"])
    assert decompositions_that_help(target, [ExporterResult(failed)], []) == ("rnn_while_loops",)
    assert decompositions_that_help(target, [ExporterResult(replace(failed, verdict="OK"))], []) == ()
    # the first node whose value differs from eager, named after its ATen op (a uint8 `<<`)
    wrong = Verdict("dynamo", "SILENTLY-WRONG", divergence={"node": "Cast node_lshift", "stack": "m.py:9"})
    assert decompositions_that_help(target, [ExporterResult(wrong)], []) == ("bitwise_left_shift",)
    # attention first differing from eager (a fully masked row): the repair written for that
    # divergence, not the attention's own decomposition as well (both would replace the op)
    wrong = Verdict("dynamo", "SILENTLY-WRONG", divergence={"node": "MatMul node_scaled_dot_product_attention"})
    assert decompositions_that_help(target, [ExporterResult(wrong)], []) == ("sdpa_masked_rows",)
    # a reduction or max pooling over NaN (onnxruntime skips them): the NaN-propagating repair
    wrong = Verdict("legacy", "SILENTLY-WRONG", divergence={"node": "MaxPool /block3/MaxPool"})
    assert decompositions_that_help(target, [ExporterResult(wrong)], []) == ("nan_propagating_max",)
    # operands of several floating dtypes the op promotes in eager (an einsum of float16 and float64)
    mixed = Verdict("dynamo", "ORT-FAILS", error="Fail: Load model failed:Type Error: Type parameter (T) of Optype "
                    "(Einsum) bound to different types (tensor(float16) and tensor(double) in node (node_einsum).")
    assert decompositions_that_help(target, [ExporterResult(mixed)], []) == ("arange_mixed", "operands_promoted")


def test_complex_values_are_carried_as_pairs_when_the_run_fails_on_them(capsys):
    """Llama 4's complex RoPE: both exporters fail on the complex ops, the run names
    complex_pairs, and with it both match PyTorch (eager keeps its complex kernels)."""
    target = ["tests/export_models/complex_rope.py:ComplexRope", "--inputs", "tests/export_models/complex_rope.py:example_inputs",
              "--exporter", "both"]
    code, document = cli_json(target, capsys)
    assert [r["verdict"] for r in document["targets"][0]["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    assert document["targets"][0]["decompose_hint"] == ["complex_pairs"]
    code, document = cli_json([*target, "--decompose-ops", "complex_pairs"], capsys)
    assert [r["verdict"] for r in document["targets"][0]["results"]] == ["OK", "OK"]

# ---- a crashing exporter is a result: CRASH, exit 1 --------------------------------------------

def test_exporter_segfault_is_crash_and_onnxfix_exits_1(capsys):
    code, document = cli_json(["tests/export_models/data_crash.py:DataTwice"], capsys)
    assert (code, document["exit_code"], document["ok"]) == (1, 1, False)
    (result,) = document["targets"][0]["results"]
    assert (result["exporter"], result["verdict"], result["stages"]["export"]) == ("dynamo", "CRASH", "failed")
    assert result["error"].startswith("the exporter process died (segmentation fault) during export")
    assert [(f["code"], f["location"], f["fixed_by"]) for f in result["findings"]] == [
        ("ONX930", {"row": 7, "column": 1}, [{"code": "ONX301", "filename": "tests/export_models/data_crash.py", "row": 9, "relation": "same-file",
                                "fixable": True}]),
    ]


def test_write_fixes_the_file_in_place_and_reverifies(tmp_path, capsys, monkeypatch):
    shutil.copy(MODELS / "data_crash.py", tmp_path / "data_crash.py")
    shutil.copy(MODELS / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.chdir(tmp_path)
    code, document = cli_json(["data_crash.py:DataTwice", "--exporter", "legacy", "--write"], capsys)
    target = document["targets"][0]
    assert [r["verdict"] for r in target["results"]] == ["SILENTLY-WRONG"]
    assert target["fix"]["mode"] == "write" and [r["verdict"] for r in target["fix"]["results"]] == ["OK"]
    assert code == 0
    assert "        return x.detach() * 2 + x\n" in (tmp_path / "data_crash.py").read_text()


# ---- a correct model, configured in pyproject.toml: OK under both, exit 0, JSON, report ------

@pytest.fixture(scope="module")
def configured(tmp_path_factory):
    folder = tmp_path_factory.mktemp("project")
    shutil.copy(MODELS / "correct.py", folder / "correct.py")
    (folder / "pyproject.toml").write_text(
        '[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n\n'
        '[[tool.onnxfix.export.targets]]\nname = "scaled"\nmodel = "correct.py:make_model"\n'
        'dynamic = ["x:0=batch"]\noutput = "build/scaled.onnx"\n'
    )
    return folder


def test_correct_model_is_ok_under_both_exporters(configured, capsys, monkeypatch):
    monkeypatch.chdir(configured)
    code, document = cli_json(["--report", "report.md"], capsys)
    assert (code, document["exit_code"], document["ok"], document["schema_version"]) == (0, 0, True, 1)
    (target,) = document["targets"]
    assert (target["name"], target["dynamic"], target["exporters"]) == ("scaled", {"x": {"0": "batch"}}, ["dynamo", "legacy"])
    for result in target["results"]:
        assert result["verdict"] == "OK" and set(result["stages"].values()) == {"ok"} and result["findings"] == []
        assert [p["probe"] for p in result["probes"]] == [
            "export inputs", "generated (other values)", "generated (dynamic dims +1)", "generated (dynamic dims +3)",
        ]
        assert all(o["ok"] and o["max_abs"] <= TOLERANCE for p in result["probes"] for o in p["outputs"])
        assert result["op_histogram"]["Relu"] == 1
        assert Path(result["onnx_path"]) == configured / "build" / f"scaled.{result['exporter']}.onnx"
        assert Path(result["onnx_path"]).is_file()
    report = (configured / "report.md").read_text()
    assert report.startswith("# onnxfix export report\n\n| target | dynamo | legacy |\n|---|---|---|\n| scaled | OK | OK |\n\n## scaled\n")
    assert "| dynamo | **OK** | ok | ok | ok | ok | ok |" in report
    assert "| generated (dynamic dims +3) | 0 |" in report
    assert "| Relu | 1 |" in report


def test_without_output_the_exported_model_is_not_left_behind(tmp_path, capsys, monkeypatch):
    """No -o: the .onnx file lives in a temporary folder that is deleted after verification
    (a pre-commit export hook must not fill the temp folder, one model per commit)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # the export worker's tempfile folder
    code, document = cli_json(["tests/export_models/correct.py:make_model", "--inputs",
                                "tests/export_models/correct.py:example_inputs", "--exporter", "legacy"], capsys)
    (result,) = document["targets"][0]["results"]
    assert (code, result["verdict"], result["onnx_path"]) == (0, "OK", None)
    # Only onnxfix's own leftovers count: onnxruntime writes a `.ses` file there on import.
    assert [p.name for p in scratch.rglob("*") if p.name.startswith("onnxfix") or p.suffix == ".onnx"] == []

# ---- results that are not the exporter's fault ---------------------------------------------

def test_a_factory_that_is_not_a_model_is_a_load_error_exit_2(capsys):
    code, document = cli_json(["tests/export_models/correct.py:example_inputs", "--exporter", "legacy"], capsys)
    (result,) = document["targets"][0]["results"]
    assert (code, result["verdict"], result["stages"]["load"], result["stages"]["export"]) == (2, "LOAD-FAILS", "failed", "skipped")
    assert result["error"] == (
        "could not load target: TypeError: tests/export_models/correct.py:example_inputs returned tuple, not a torch.nn.Module"
    )
    assert result["findings"] == []


def test_timeout_is_a_result(capsys):
    code, document = cli_json(["tests/export_models/slow.py:make_model", "--inputs",
                                "tests/export_models/slow.py:example_inputs", "--timeout", "0.5"], capsys)
    (result,) = document["targets"][0]["results"]
    assert (code, result["verdict"], result["error"]) == (1, "TIMEOUT", "export did not finish in 0.5 s")
    assert [(f["code"], f["location"]["row"]) for f in result["findings"]] == [("ONX931", 19)]


def test_onnxruntime_failure_maps_through_the_dynamo_node_metadata(tmp_path):
    """onnxruntime names the failing node; the dynamo exporter stored its stack trace there."""
    import onnx
    from onnx import TensorProto, helper

    from onnxfix.exporter.locations import Location
    from onnxfix.exporter.result import ProbeResult, Verdict
    from onnxfix.exporter.sourcemap import findings_for
    from onnxfix.exporter.failure_facts import onnx_node_traces

    user = MODELS / "bakes_size.py"
    node = helper.make_node("Add", ["a", "b"], ["c"], name="node_add")
    node.metadata_props.add(key="pkg.torch.onnx.stack_trace",
                            value=f'File "{user}", line 13, in forward\n    return pieces.mean(dim=-1)')
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "ab"],
                              [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph), str(path))
    note = "onnxruntime: Fail: Non-zero status code returned while running Add node. Name:'node_add' Status Message: broadcast"
    verdict = Verdict("dynamo", "ORT-FAILS", failed_stage="runtime", failing_probe="probe 1 (user)",
                      probes=[ProbeResult("probe 1 (user)", ok=False, note=note)], node_traces=onnx_node_traces(path, note))
    (finding,) = findings_for(verdict, Location(str(user), 10), [])
    assert render.finding_line(finding) == (
        "tests/export_models/bakes_size.py:13:1: ONX941 [dynamo] on probe 1 (user): onnxruntime: Fail: Non-zero status "
        "code returned while running Add node. Name:'node_add' Status Message: broadcast"
    )


# ---- the parent process never imports torch: model code runs only in the export children ----

def test_export_parent_process_never_imports_torch():
    """`onnxfix export` loads and exports the model in a child process (a segfaulting exporter
    must not take onnxfix down): the parent imports neither torch nor onnx."""
    code = (
        "import sys\n"
        "from onnxfix.cli import main\n"
        "status = main(['export', '--format', 'json', '--no-progress', '--exporter', 'legacy',\n"
        "               'tests/export_models/three_ops.py:Ranker', '--inputs',\n"
        "               'tests/export_models/three_ops.py:example_inputs', '--decompose'])\n"
        "heavy = sorted(m for m in ('torch', 'onnx', 'onnxruntime', 'numpy') if m in sys.modules)\n"
        "print('STATUS', status, 'HEAVY', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert "STATUS 0 HEAVY []" in proc.stderr, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["targets"][0]["results"][0]["verdict"] == "OK"


def test_runtime_errors_keep_the_shapes_and_drop_the_cpp_location():
    from onnxfix.exporter.verify import runtime_error

    message = (
        "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running Reshape node. "
        "Name:'/Reshape' Status Message: /onnxruntime_src/onnxruntime/core/providers/cpu/tensor/reshape_helper.h:47 "
        "onnxruntime::ReshapeHelper::ReshapeHelper(const onnxruntime::TensorShape&, onnxruntime::TensorShapeVector&, "
        "bool) input_shape_size == size was false. The input tensor cannot be reshaped to the requested shape. "
        "Input shape:{2,3,8}, requested shape:{2,12,-1}"
    )
    assert runtime_error(RuntimeError(message)) == (
        "RuntimeError: [ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Non-zero status code returned while running "
        "Reshape node. Name:'/Reshape' Status Message: input_shape_size == size was false. The input tensor cannot "
        "be reshaped to the requested shape. Input shape:{2,3,8}, requested shape:{2,12,-1}"
    )
    long = runtime_error(RuntimeError("x" * 1000 + " Input shape:{9}"), limit=60)
    assert long == "RuntimeError: xxxxxx ... " + "x" * 24 + " Input shape:{9}"
