"""Operator repairs `onnxfix export --fix` takes from the failure a run names, for calls the
source does not show (a layer's own call, a rank, an old spelling): tests/export_models/
operator_repairs.py. Each model fails before, exports OK after with the named decomposition (export
time only), and matches eager in onnxruntime on other batch sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export_cli import export_fixed, written_and_proven
from onnxfix.cli import main as cli_main

MODEL = Path(__file__).parent / "export_models" / "operator_repairs.py"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.mark.parametrize("factory, exporter, before, repair", [
    ("nuclear_norm", "legacy", "EXPORT-FAILS", "norm_nuclear"),  # torch.norm(x, "nuc")
    ("dilated_same_conv", "legacy", "ORT-FAILS", "conv_weight_shape"),  # SAME_UPPER with dilations
    ("shuffled_coordinates", "legacy", "EXPORT-FAILS", "pixel_shuffle"),  # a 5-D pixel_shuffle
    ("fourier_filter", "legacy", "EXPORT-FAILS", "complex_pairs"),  # fft2 / shifts / ifft2 as pairs
    ("grouped_experts", "dynamo", "ORT-FAILS", "grouped_mm"),  # no bfloat16 MatMul kernel
    ("grouped_experts", "legacy", "EXPORT-FAILS", "grouped_mm"),  # aten::_grouped_mm
    ("patch_norm", "legacy", "EXPORT-FAILS", "layer_norm"),  # normalized_shape not constant
    ("complex_table", "legacy", "EXPORT-FAILS", "complex_pairs"),  # a complex buffer: pairs while exporting
    ("integer_gaps", "dynamo", "ORT-FAILS", "float32_compute"),  # int32 Unique, int64 Relu, MaxPool, bool Where: no kernels
    ("integer_gaps", "legacy", "ORT-FAILS", "float32_compute"),
    ("bit_packing", "dynamo", "SILENTLY-WRONG", "bitwise_left_shift"),  # the first divergent node: Cast node_lshift
    ("mixed_precision_rope", "dynamo", "ORT-FAILS", "operands_promoted"),  # Einsum of float16 and float64
    ("mixed_precision_rope", "legacy", "ORT-FAILS", "operands_promoted"),
    ("ellipsis_reduce", "dynamo", "ORT-FAILS", "einsum_ellipsis"),  # Einsum shape inference: ellipses of 3 and 0 dims
    ("ellipsis_reduce", "legacy", "ORT-FAILS", "einsum_ellipsis"),
    ("dilated_deconv", "dynamo", "ORT-FAILS", "conv_transpose_padded"),  # output_padding 1, stride 1, dilation 2
    ("dilated_deconv", "legacy", "ORT-FAILS", "conv_transpose_padded"),
    ("integral_image", "legacy", "ORT-FAILS", "float32_compute"),  # a uint8 CumSum: widened, int64 as in eager
    ("global_peak", "dynamo", "SILENTLY-WRONG", "index_keepdim"),  # argmax(keepdim=True) with no dim: [1] for [1, 1]
    ("image_standardize", "dynamo", "ORT-FAILS", "float32_compute"),  # mean(dtype=float32) of uint8: ReduceMean on uint8
    # _weight_norm of a 1-D v: one norm for the whole vector; named by the call at the divergent line
    ("weight_normed_slopes", "dynamo", "SILENTLY-WRONG", "weight_norm_1d"),
    ("weight_normed_slopes", "legacy", "SILENTLY-WRONG", "weight_norm_1d"),
    # an accumulating index_put whose graph value an optimizer folded away: named from the vanished line
    ("merged_labels", "dynamo", "SILENTLY-WRONG", "index_put_reduced"),
    ("merged_labels_in_place", "dynamo", "SILENTLY-WRONG", "index_put_reduced"),
])
def test_the_failure_names_its_repair(capsys, factory, exporter, before, repair):
    cli_main(["export", "--format", "json", f"{MODEL}:make_{factory}", "--exporter", exporter, "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (first,) = target["results"]
    assert first["verdict"] == before, first
    fix = target["fix"]
    (after,) = fix["results"]
    assert after["verdict"] == "OK", after
    # kept at export time, or written as a source fix where the run shows the user's call
    assert repair in fix["decompositions"] + fix["decompositions_written"], fix
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]


def test_glms_interleaved_rope_is_written_with_the_negative_dim_repeat_interleave(tmp_path, capsys):
    """GLM's interleaved RoPE: the legacy failure is a later cat's ("All tensors must have the same
    rank"), whose cause is the repeat_interleave symbolic adding the rank to `dim=-1` in place, in the
    constant the slices' -1 share (with dim=3 the model exports as it is); ONX519 rewrites both calls,
    and `--write` leaves the file exporting."""
    model = tmp_path / "interleaved_rope.py"
    model.write_text((MODEL.parent / "interleaved_rope.py").read_text())
    cli_main(["export", "--format", "json", f"{model}:make_model", "--exporter", "legacy", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert target["results"][0]["verdict"] == "EXPORT-FAILS"
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert target["fix"]["decompositions_written"] == []  # the source fix, not the run, wrote them
    written = model.read_text()
    assert written.count("_onnx_repeat_interleave_dim(cos[..., : cos.shape[-1] // 2], 2, dim=-1)") == 1
    assert written.count("_onnx_repeat_interleave_dim(sin[..., : sin.shape[-1] // 2], 2, dim=-1)") == 1


def test_a_uint8_shift_the_run_proved_wrong_is_written_at_its_operators(tmp_path, capsys):
    """A uint8 `<<` (torch.onnx casts it to int8): the first divergent node names the shift's
    decomposition, and `--write` rewrites the operators at the lines the run decomposed; the helper
    keeps the op in eager (a safe fix), and the written file exports as it is."""
    model = tmp_path / "bit_packing.py"
    model.write_text(MODEL.read_text())
    cli_main(["export", "--format", "json", f"{model}:make_bit_packing", "--exporter", "dynamo", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    assert target["results"][0]["verdict"] == "SILENTLY-WRONG"
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK"]
    assert (target["fix"]["decompositions"], target["fix"]["decompositions_written"]) == ([], ["bitwise_left_shift"])
    written = model.read_text()
    assert "packed = _onnx_bitwise_left_shift(bits[..., 0], 7)  # torch.onnx casts" in written
    assert "packed = packed + (_onnx_bitwise_left_shift(bits[..., i], 7 - i))\n" in written


def test_adaptive_max_pooling_to_a_fraction_of_the_input_size_exports_under_both(tmp_path, capsys):
    """SAFMN's `F.adaptive_max_pool2d(x, (h // 2, w // 2))` (chaiNNer#2504): the legacy exporter
    refuses the pooling, torch.export unrolls the example's bins (wrong on other sizes); ONX509's
    static fix gathers each bin from the symbolic size: both exports match eager on other image
    sizes, and eager is bit-identical (max is exact in any order)."""
    written = written_and_proven(tmp_path, capsys, "pooled_by_size.py", ["SILENTLY-WRONG", "EXPORT-FAILS"])
    assert "_onnx_adaptive_max_pool2d(chunk, (h // 2**i, w // 2**i))" in written


def test_library_operators_export_through_their_python_kernels(capsys):
    """Attention through two torch.library operators (xformers' and flash-attn's way): no ONNX
    function for them (dynamo), an int output the legacy exporter cannot type; the run names
    custom_ops_inlined, and the export through their Python kernels matches PyTorch on other
    batches and lengths under both exporters. The source is not edited."""

    target = export_fixed(capsys, "library_attention.py", "--exporter", "both")
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    assert "No ONNX function found for <OpOverload(op='onnxfix_attn.scores'" in target["results"][0]["error"]
    assert "unsupported output type: int, from operator: onnxfix_attn::scores" in target["results"][1]["error"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"]) == (["custom_ops_inlined"], "")
    assert [r["verdict"] for r in fix["results"]] == ["OK", "OK"]



def test_attention_with_a_tensor_scale_is_written_out_with_the_scale_a_graph_value(tmp_path, capsys):
    """TabDPT: `scale=` a 0-d tensor computed from the context's length. The dynamo failure (a float read
    out of a tensor) names sdpa_tensor_scale; `--write` rewrites the call the run decomposed, and both
    exports match eager on other lengths (the legacy one had recorded the export length's temperature)."""
    written = written_and_proven(tmp_path, capsys, "context_scaled_attention.py", ["EXPORT-FAILS", "SILENTLY-WRONG"])
    assert "out = _onnx_sdpa_tensor_scale(q, k, v, scale=beta / " in written  # (the sqrt of a size: ONX402)


def test_a_float_division_rounded_down_is_computed_as_aten_does_where_the_run_saw_it_differ(tmp_path, capsys):
    """`torch.div(a, b, rounding_mode="floor")` on floats: both exporters floor the plain quotient, 1 too
    high where it rounds onto a whole number. The first differing node (node_div) names div_rounded, and
    `--write` rewrites the call the run decomposed: both exports match eager on other values."""
    written = written_and_proven(tmp_path, capsys, "floor_bins.py", ["SILENTLY-WRONG", "SILENTLY-WRONG"])
    assert 'return _onnx_div_rounded(a, b, rounding_mode="floor")' in written


def test_a_failure_a_repair_uncovers_is_fixed_by_the_loop_run_again_under_that_repair(tmp_path, capsys):
    """HTDemucs' `_ispec`: dynamo fails on the complex `F.pad`; complex_pairs gets it past that to
    pad1d's assert on tensor values, a line no export named before. The fix loop runs again with
    every export under the repair: ONX601's fix of that assert is kept, both exports match eager on
    other batches, and `--write` writes the pair helper and the assert."""
    written = written_and_proven(tmp_path, capsys, "complex_pad_assert.py", ["EXPORT-FAILS", "EXPORT-FAILS"])
    assert "    assert torch.compiler.is_exporting() or (out[..., padding_left: padding_left + length] == x0).all()\n" in written
    assert "        z = _onnx_pair_view_as_complex(m.contiguous())\n" in written
    assert "        z = F.pad(z, (2, 2))\n" in written  # the complex pad: decomposed at export time only


def test_an_antialiased_resize_to_sizes_computed_from_the_input_exports_at_every_size(tmp_path, capsys):
    """sleap-nn: `interpolate(size=(int(H * s), int(W * s)), antialias=True)`. `int()` becomes
    `_onnx_sym_int` (interpolate's size takes the legacy tracer's tensor: a dynamic size, where
    `torch.sym_int` left the export-time one and the resize silently wrong); `_onnx_interpolate`
    computes the antialiased resize for legacy, and dynamo translates it to the symbolic size."""
    written = written_and_proven(tmp_path, capsys, "scaled_resize.py", ["SILENTLY-WRONG", "EXPORT-FAILS"])
    assert "        height = _onnx_sym_int(image.shape[-2] * self.input_scale)\n" in written
    assert "        image = _onnx_interpolate(image, size=(height, width)," in written


def test_a_pad_value_read_out_of_a_tensor_stays_a_graph_value(tmp_path, capsys):
    """x-transformers' memory mask: `F.pad(mask, ..., value=torch.any(mem))`. dynamo stops on the value
    read out of the tensor (named pad_tensor_value), the legacy export records it (the Pad node first
    wrong where the memory is zeros); under pad_tensor_value the legacy exporter's `any` of floats is
    the first wrong value (its Greater node: any_nonzero). `--write` rewrites both calls, and both
    exports match eager on other batches and lengths, an all-zero memory among them."""
    written = written_and_proven(tmp_path, capsys, "pad_value_any.py", ["EXPORT-FAILS", "SILENTLY-WRONG"])
    assert "        attend = _onnx_any_nonzero(mem * 0.1)\n" in written
    assert "        mask = _onnx_pad_tensor_value(mask, (mem.shape[1], 0), value=attend)\n" in written


def test_a_repair_whose_op_corrupts_the_graph_is_named_wherever_the_op_ran(capsys):
    """The legacy repeat_interleave symbolic adds the rank to dim=-1 in place, in the constant the
    expand's -1 shares: onnxruntime fails at the expand, a line that calls no repeat_interleave.
    The record (repairs_anywhere) is named because the run called the op at all, as it would inside
    a library's model (transformers' Cohere), where no static fix reaches; exported with it, OK."""
    from onnxfix.exporter import plan
    from onnxfix.exporter.session import NoProgress, run_target

    spec = f"{MODEL}:make_interleaved_table"
    result = run_target(plan.make_target(spec, exporters=("legacy",)), NoProgress())
    (exported,) = result.results
    assert exported.verdict.verdict == "ORT-FAILS" and exported.verdict.divergence["node"].startswith("Expand ")
    assert "repeat_interleave" in result.decompose_hint
    cli_main(["export", "--format", "json", spec, "--exporter", "legacy", "--decompose-ops", "repeat_interleave"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (decomposed,) = target["results"]
    assert decomposed["verdict"] == "OK", decomposed


def test_a_call_names_its_record_only_where_the_record_says():
    """named_at_line records (weight_norm_1d) by a call on the divergent line, not elsewhere;
    repairs_anywhere records (repeat_interleave) by a call anywhere, for their exporter only; records
    keyed on a node (nan_propagating_max) never by a call."""
    import torch

    from onnxfix.exporter.divergence import _LineValues, _repairs_called, named_ops

    legacy, dynamo = named_ops("legacy"), named_ops("dynamo")
    recorded = _LineValues(frozenset(legacy))
    line, other = ("m.py", 3), ("m.py", 9)
    recorded.called = {torch._weight_norm, torch.repeat_interleave, torch.amax}
    recorded.calls_by_line = {line: {torch._weight_norm, torch.amax}, other: {torch.repeat_interleave}}
    assert set(_repairs_called(recorded, line, legacy)) == {"weight_norm_1d", "repeat_interleave"}
    assert _repairs_called(recorded, other, legacy) == ("repeat_interleave",)
    assert _repairs_called(recorded, line, dynamo) == ("weight_norm_1d",)
    assert _repairs_called(recorded, other, dynamo) == ()
