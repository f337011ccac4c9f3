"""Root lines of real-world dynamo failures (issue #12 item 1), on live exports of tests/realworld/:
a specialization (ONX914), a restriction (ONX915) and data-dependent guards (ONX913) are each
reported at the line of the case file that causes them, before the symptom torch or onnxruntime
points at. bench/rootcause.py makes the table of docs/export-cmd.md from the same runs.

Each case is exported once (seconds per export)."""

from __future__ import annotations

import pytest

from onnxfix.exporter import plan, render
from onnxfix.exporter.session import NoProgress, run_target

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py

CASES = "tests/realworld/"


def _export(case: str):
    (result,) = run_target(plan.make_target(f"{CASES}{case}.py:make_model"), NoProgress()).results
    return result.verdict.verdict, [render.finding_line(f) for f in result.findings]


def _where(lines: list[str]) -> list[str]:
    return [line.split(" [")[0].removeprefix(CASES) for line in lines]


def test_int_of_sizes_and_len_are_reported_where_they_specialize_not_at_the_factory():
    """Both captures fail; the error torch.onnx raises (the first one's) lists batch, h and w as
    specialized: all three guards of that capture are reported, at lines 21 and 23."""
    verdict, lines = _export("otx_int_shape_len")
    assert verdict == "EXPORT-FAILS"
    assert _where(lines) == ["otx_int_shape_len.py:21:1: ONX914", "otx_int_shape_len.py:21:1: ONX914",
                             "otx_int_shape_len.py:23:26: ONX914",  # at the static ONX603 (col 26)
                             "otx_int_shape_len.py:28:1: ONX910"]
    assert lines[0] == (
        f"{CASES}otx_int_shape_len.py:21:1: ONX914 [dynamo] dynamic inputs.shape[2] (\"h\", s34 in the guard) "
        "specialized by guard Eq(s34, 16): the exported model works only for inputs.shape[2] in 16; it fails e.g. "
        "for 17; a size made a Python number with int(): keep it a SymInt or a tensor (the ONX203 pattern)"
    )
    assert "inputs.shape[3] (\"w\", s90 in the guard) specialized by guard Eq(s90, 16)" in lines[1]
    assert "inputs.shape[0] (\"batch\", s85 in the guard) specialized by guard Eq(s85, 2)" in lines[2]
    assert lines[2].endswith(f"(fixed by ONX204 at {CASES}otx_int_shape_len.py:23, ONX603 at {CASES}otx_int_shape_len.py:23)")
    assert "conflicts between user-specified ranges and inferred ranges" in lines[3]  # the symptom, at make_model


def test_swin_parity_is_reported_at_the_or_and_the_if_before_the_concat_that_fails():
    verdict, lines = _export("swin_patch_merging_parity")
    assert verdict == "ORT-FAILS"
    assert _where(lines) == ["swin_patch_merging_parity.py:23:1: ONX915", "swin_patch_merging_parity.py:24:12: ONX915",
                             "swin_patch_merging_parity.py:27:1: ONX945", "swin_patch_merging_parity.py:30:1: ONX941"]
    assert lines[0] == (
        f"{CASES}swin_patch_merging_parity.py:23:1: ONX915 [dynamo] dynamic x.shape[2] (\"h\", s53 in the guard) "
        "restricted by guard Ne(Mod(s53, 2), 1): the exported model works only when x.shape[2] is even (x.shape[2] "
        "in 8, 10, 12, ...); it fails e.g. for 9; a size condition turned into a Python bool by `or`: combine with "
        "tensor ops, or pad/branch without it"
    )
    assert "running Concat node" in lines[3]


def test_a_branch_on_a_tensor_sum_names_the_line_and_where_the_value_was_read():
    """`if x.sum() > 0:` makes a SymBool (Eq(u0, 1)); its symbol u0 is traced to the same line, where the
    static ONX601 finding (the forward input is used as a tensor) carries the fix."""
    verdict, lines = _export("control_flow_sum_branch")
    assert verdict == "EXPORT-FAILS"
    assert lines == [
        f"{CASES}control_flow_sum_branch.py:20:12: ONX913 [dynamo] GuardOnDataDependentSymNode: Could not guard on "
        "data-dependent expression Eq(u0, 1) (unhinted: Eq(u0, 1)).  (Size-like symbols: none) (u0 is a value read "
        "out of a tensor at line 20: `if x.sum() > 0:`) "
        f"(fixed by ONX601 at {CASES}control_flow_sum_branch.py:20)",
    ]


def test_a_loop_over_a_data_dependent_count_names_the_loop_and_the_where_that_made_the_count():
    verdict, lines = _export("fasterrcnn_loop_keep")
    assert verdict == "EXPORT-FAILS"
    assert _where(lines) == ["fasterrcnn_loop_keep.py:18:9: ONX913"]  # at the static ONX603 (col 9)
    assert lines[0].endswith(
        "Could not extract specialized integer from data-dependent expression u0 (unhinted: u0).  (Size-like "
        "symbols: u0) (u0 is a value read out of a tensor at line 16: `keep = torch.where(scores > 0.05)[0]`) "
        f"(reported by ONX603 at {CASES}fasterrcnn_loop_keep.py:18: no automatic fix)"
    )
