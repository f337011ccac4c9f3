"""`onnxfix export --fix` end to end, the repairs of torch.onnx's own translation: a remainder by a
dynamic size, the comparisons removed assertions leave, int32 slice bounds, a squeeze torch keeps, and
floor divisions of sizes sympy makes negative (tests/export_models/). Split from
tests/test_export_cmd_repairs.py (size)."""

from __future__ import annotations

import pytest

from export_cli import MODELS, cli_json

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_a_remainder_by_a_dynamic_size_is_computed_from_a_floor_division_while_exporting(capsys):
    """`t % n` with n a dynamic size fails torch.onnx's translation of remainder.Scalar; the static
    rule (ONX515) rewrites it to remainder_symbolic's helper, which the export's repair would
    substitute for it otherwise, and the export with it matches PyTorch on other sizes."""
    spec = MODELS / "symbolic_remainder.py"
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                                "--dynamic", "0:0=batch,1=seq", "--dynamic", "1:0=batch", "--exporter", "dynamo",
                                "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "SymbolicTensor" in target["results"][0]["error"]
    fix = target["fix"]
    assert "shifted_idx = _onnx_remainder_symbolic(idx_range - shift[:, None], num_seq)" in fix["diff"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]


def test_a_loss_over_masked_rows_is_written_without_the_reference_emptiness_check(capsys):
    """AdaptSegNet's CrossEntropy2d: nll_loss's reference decomposition asks whether the masked
    rows are empty (an unbacked count); the guard raised inside it names cross_entropy_rows, which
    substituted while exporting makes the export match PyTorch on other sizes and labels."""
    spec = MODELS / "masked_pixel_loss.py"
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                                "--probe-inputs", f"{spec}:probe_inputs", "--dynamic", "0:0=batch,2=height,3=width",
                                "--dynamic", "1:0=batch,1=height,2=width", "--exporter", "dynamo", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "data-dependent expression" in str(target["results"][0])
    fix = target["fix"]
    assert fix["decompositions"] == ["cross_entropy_rows"]
    assert [r["verdict"] for r in fix["results"]] == ["OK"]


def test_size_comparisons_left_by_removed_assertions_are_dropped_before_the_translation(capsys):
    """MMYOLO's `min(topk, n)` of a selection: torch.export asserts `u1 <= 46116860184273879030`,
    torch.onnx removes the assertion but translates its comparison and fails on the bound; with
    the unread comparisons erased, the export matches PyTorch on other sizes."""
    spec = MODELS / "yolov5_head_topk.py"
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                                "--probe-inputs", f"{spec}:probe_inputs", "--dynamic", "0:0=priors",
                                "--dynamic", "1:0=priors", "--dynamic", "2:0=priors", "--exporter", "dynamo", "--fix"],
                               capsys)
    (target,) = document["targets"]
    assert "Error calling operator 'LessOrEqual'" in target["results"][0]["error"]
    fix = target["fix"]
    assert (fix["decompositions"], [r["verdict"] for r in fix["results"]]) == (["dead_comparisons_dropped"], ["OK"])


def test_int32_slice_bounds_are_cast_for_the_legacy_slice(capsys):
    """A frame count made int32 and used as slice bounds: onnxruntime refuses the legacy Slice that
    mixes it with int64 constants, and the run names slice_bounds_int64; exported with it (the
    static `.long()` fix aside), the model matches PyTorch on other counts and sizes."""
    spec = MODELS / "int32_slice_bounds.py"
    code, document = cli_json([f"{spec}:make_model", "--exporter", "legacy"], capsys)
    (target,) = document["targets"]
    assert "Type parameter (Tind) of Optype (Slice) bound to different types" in target["results"][0]["error"]
    assert "slice_bounds_int64" in target["decompose_hint"]
    code, document = cli_json([f"{spec}:make_model", "--exporter", "legacy", "--decompose-ops", "slice_bounds_int64"],
                              capsys)
    (result,) = document["targets"][0]["results"]
    assert result["verdict"] == "OK" and sum(p["ok"] for p in result["probes"]) >= 3


def test_a_squeeze_of_a_dynamic_axis_torch_keeps_is_not_written(capsys):
    """`signal.squeeze(1)` of a (batch, time) signal: torch keeps the time axis, torch.onnx still
    writes a Squeeze of it and onnxruntime fails on it; with squeeze_dim the export matches PyTorch
    on other lengths under both exporters."""
    spec = MODELS / "noop_squeeze_dynamic.py"
    code, document = cli_json([f"{spec}:make_model", "--exporter", "both", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["ORT-FAILS", "OK"]
    assert "running Squeeze node" in target["results"][0]["error"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"], [r["verdict"] for r in fix["results"]]) == (
        ["squeeze_dim"], "", ["OK", "OK"])


def test_a_floor_division_of_sizes_sympy_makes_negative_is_floored_while_exporting(capsys):
    """A table cropped around its center from `(16 - h) // 2` to that plus `h`: the exported program
    computes the end as `h + 8 + (-h) // 2`, torch.onnx writes the floor division as a truncating
    Div, and for an odd size the dynamo export crops one row too many (a shape onnxruntime cannot
    add); the fix loop tries floor_division_floored as its last resort (an export that ran and fails
    in onnxruntime or is wrong, nothing else named),
    and exported with it the model matches PyTorch on odd and even sizes. The source is not edited."""
    spec = MODELS / "centered_crop_floordiv.py"
    code, document = cli_json([f"{spec}:make_model", "--exporter", "dynamo", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["ORT-FAILS"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"], [r["verdict"] for r in fix["results"]]) == (
        ["floor_division_floored"], "", ["OK"])
    assert sum(p["ok"] for p in fix["results"][0]["probes"]) >= 3
