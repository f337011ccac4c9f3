"""`onnxfix export --write` reading the legacy trace's warnings as evidence: a `len()` the trace
warned of ("Using len to get tensor shape") took a tensor, whatever the static rules could type of
its argument (tests/export_models/dict_entry_len.py); a `.tolist()` it warned of ("Converting a tensor to
a Python list") was recorded as constants (tests/export_models/routed_expert_sizes.py); a `float()`
of sizes dynamo specialized stays symbolic (rope_float_sizes.py); a `len()` fix dropped for a silent
export holds under the repair that takes the silent part (anchor_counts.py)."""

from __future__ import annotations

import pytest

from export_cli import written_and_proven

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_len_of_a_dict_entry_the_legacy_trace_warned_of_is_read_as_its_shape(tmp_path, capsys):
    """`len(data["num_atoms"])` (NequIP): the static rules cannot type a dict's entry, but the legacy
    trace warns "Using len to get tensor shape" at that line, so `onnxfix export --write` writes
    `data["num_atoms"].shape[0]` (safe: the run saw a tensor there) and legacy's scatter is sized by
    the graph."""
    written = written_and_proven(tmp_path, capsys, "dict_entry_len.py", ["OK", "ORT-FAILS"])
    assert 'return data["num_atoms"].shape[0]' in written


def test_a_list_the_legacy_trace_recorded_is_kept_graph_values_while_it_traces(tmp_path, capsys):
    """GraniteMoE: `expert_size.tolist()` returned by the router, split sizes in another module. The legacy
    trace warns "Converting a tensor to a Python list" at that line, so `onnxfix export --write` writes
    `_onnx_tensor_list(...)` there (safe: `.tolist()` itself but while the legacy exporter traces)."""
    written = written_and_proven(tmp_path, capsys, "routed_expert_sizes.py", ["OK", "ORT-FAILS"])
    assert "expert_size = _onnx_tensor_list(F.one_hot(choice, self.experts).sum(0))" in written


def test_a_float_of_sizes_the_run_specialized_stays_symbolic(tmp_path, capsys):
    """DINOv3's RoPE: `h_denom = float(height)` in a module reached through two calls. dynamo's guard
    and the legacy trace's warning name the line, so ONX203 writes `_onnx_sym_float` there (safe:
    float() itself in eager); it only divides tensors, so the legacy form keeps a graph value."""
    written = written_and_proven(tmp_path, capsys, "rope_float_sizes.py", ["SILENTLY-WRONG", "SILENTLY-WRONG"])
    assert "        h_denom = _onnx_sym_float(height)\n" in written
    assert "        w_denom = _onnx_sym_float(width)\n" in written


def test_a_fix_dropped_for_a_silent_export_is_tried_again_under_the_repair_that_takes_the_silent_part(
        tmp_path, capsys):
    """super-gradients' PP-YOLOE anchors: `len(anchors[-1])` sizes a tensor and is returned among the
    outputs. ONX204's `.shape[0]` alone makes both exports silently wrong (the counts of other sizes),
    so the first loop drops it; flat_outputs leaves the counts out of the ONNX model, and the loop
    under it keeps the fix: both exports match eager on other batches and sizes, and `--write`
    writes the fix (eager outputs unchanged)."""
    import shutil

    import torch

    from export_cli import MODELS, cli_json
    from onnxfix.exporter.targets import load_module

    copy = tmp_path / "anchor_counts.py"
    shutil.copy(MODELS / "anchor_counts.py", copy)
    code, document = cli_json([f"{copy}:make_model", "--exporter", "both", "--write"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS", "EXPORT-FAILS"]
    assert target["fix"]["decompositions"] == ["flat_outputs"]
    assert [r["verdict"] for r in target["fix"]["results"]] == ["OK", "OK"]
    assert code == 0 and "        counts.append(anchors[-1].shape[0])\n" in copy.read_text()
    original, fixed = load_module(MODELS / "anchor_counts.py"), load_module(copy)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        (a, b, counts), (c, d, fixed_counts) = original.make_model()(*args), fixed.make_model()(*args)
        assert torch.equal(a, c) and torch.equal(b, d) and counts == fixed_counts
