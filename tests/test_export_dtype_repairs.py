"""Export-time repairs of dtypes onnxruntime refuses in the legacy exporter's graph, keyed on its
load-time type error: float32_compute on a half-precision arange (a float16 Range;
tests/export_models/half_arange_grid.py), on a bfloat16 `torch.full` (an Expand on bfloat16 under
dynamo; tests/export_models/bf16_causal_mask.py), on a float16 index_add_ (no float16 ScatterND with a
reduction) and a torch.min of bool masks (Min on bool; tests/export_models/half_segment_peaks.py), on
masks merged with masked_fill (Where on bool under dynamo; under legacy first a bool fill value TorchScript
has no overload for, and `torch.eye(t)` of a traced size, which stays a size; tests/export_models/bool_mask_fill.py), on an
int64 addmm (no integer Gemm: a MatMul and an Add; tests/export_models/int_counts_addmm.py), on integer
pixel_shuffle / pixel_unshuffle (no integer DepthToSpace: torch's reshape, permutation and reshape;
tests/export_models/int_codes_pixel_shuffle.py), on a bool mask's max along a dim (no bool ArgMax or
ReduceMax: reduced as uint8; tests/export_models/bool_mask_reductions.py), on exp
and sqrt of int32 tensors (legacy writes them on the integers; tests/export_models/int_count_decay.py), and
all_nonzero on `.all()` of a float mask (Not on a float; tests/export_models/float_mask_all.py), and
unbatched_pool on pools of unbatched inputs (ONNX's pooling takes a batch; unbatched_pools.py), and
float32_compute on random draws in float16 (no float16 RandomNormalLike / RandomUniformLike kernel: drawn in
float32 and cast; tests/export_models/half_noise_draws.py, the sampled output not compared). After
`onnxfix export --fix` each model matches eager on other sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export_cli import export_fixed
from onnxfix.cli import main as cli_main

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.mark.parametrize("model, exporter, refused", [("half_arange_grid", "legacy", "Type 'tensor(float16)'"),
                                                       ("float_mask_all", "legacy", "Type 'tensor(float)'"),
                                                       ("bf16_causal_mask", "dynamo", "implementation for MatMul(13)"),
                                                       ("half_segment_peaks", "dynamo", "MLFloat16 data type is not supported"),
                                                       ("half_segment_peaks", "legacy", "Type 'tensor(bool)'"),
                                                       ("bool_mask_fill", "dynamo", "implementation for Where("),
                                                       ("int_counts_addmm", "dynamo", "implementation for Gemm(13)"),
                                                       ("int_codes_pixel_shuffle", "dynamo", "implementation for DepthToSpace("),
                                                       ("int_codes_pixel_shuffle", "legacy", "implementation for DepthToSpace("),
                                                       ("bool_mask_reductions", "dynamo", "of operator (ArgMax)"),
                                                       ("bool_mask_reductions", "legacy", "of operator (ArgMax)"),
                                                       ("int_count_decay", "legacy", "Type 'tensor(int32)'"),
                                                       ("unbatched_pools", "legacy", "Attribute strides has incorrect size"),
                                                       ("half_noise_draws", "dynamo", "implementation for RandomNormalLike("),
                                                       ("half_noise_draws", "legacy", "implementation for RandomNormalLike(")])
def test_a_type_onnxruntime_refuses_is_repaired_at_export(capsys, model, exporter, refused):
    cli_main(["export", "--format", "json", f"{MODELS / model}.py:make_model", "--exporter", exporter, "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "ORT-FAILS" and refused in json.dumps(before)
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]


def test_a_bool_fill_value_the_legacy_tracer_refuses_is_filled_as_an_integer(capsys):
    """Under legacy the same masks fail at export (TorchScript has no masked_fill overload for a Python
    bool value): bool_scalars_as_ints, named by that error, fills with the int; onnxruntime then names
    float32_compute (Where on bool), which fills the masks as uint8 with the int the bool equals and is
    kept alone; `torch.eye(t)` (ONX528's fix of the bool eye), whose t the tracer hands over as a tensor,
    stays a size rather than an operand cast to float."""
    cli_main(["export", "--format", "json", f"{MODELS / 'bool_mask_fill'}.py:make_model", "--exporter", "legacy", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "We don't have an op for aten::masked_fill" in before["error"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert target["fix"]["decompositions"] == ["float32_compute"]
    assert "+        mask.masked_fill_(torch.eye(t).bool().unsqueeze(0), False)\n" in target["fix"]["diff"]


def test_integer_operands_beside_floating_ones_are_promoted_as_eager_does(capsys):
    """V-JEPA 2's RoPE: `torch.einsum("..., f -> ... f", pos, omega)` with int64 positions and float32
    frequencies. Eager promotes the positions; both exporters write an Einsum of int64 and float, which
    onnxruntime refuses to load. The load error names operands_promoted, which casts the positions to
    float32 while exporting: both exports match eager on other sizes."""
    target = export_fixed(capsys, "int_positions_einsum.py", "--dynamic", "0:0=n", "--exporter", "both")
    assert [r["verdict"] for r in target["results"]] == ["ORT-FAILS", "ORT-FAILS"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"]
    assert "operands_promoted" in target["fix"]["decompositions"]
