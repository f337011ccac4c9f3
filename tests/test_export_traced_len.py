"""`onnxfix export --write` reading the legacy trace's warnings as evidence: a `len()` the trace
warned of ("Using len to get tensor shape") took a tensor, whatever the static rules could type of
its argument (tests/export_models/dict_entry_len.py); a `.tolist()` it warned of ("Converting a tensor to
a Python list") was recorded as constants (tests/export_models/routed_expert_sizes.py)."""

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
