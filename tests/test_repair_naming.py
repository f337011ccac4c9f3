"""Which repairs a failure names, torch-free: a data-dependent guard names pad_tensor_value only where
it was raised inside torch's F.pad; records repairing one argument pattern are not named by their op; the op-wrapping
unbatched_pool never displaces a pool's own record in the "all" table; guard lines of a text
accumulate within a session and are replaced by another session's."""

from __future__ import annotations

from types import SimpleNamespace

from onnxfix.decompositions import DECOMPOSITIONS, key_of_op
from onnxfix.exporter import repair_candidates
from onnxfix.exporter.result import Verdict
from onnxfix.rewriter import evidence

GUARD = "GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1)"


def _failed(frames: list[list]) -> SimpleNamespace:
    verdict = Verdict("dynamo", "EXPORT-FAILS", error=GUARD)
    verdict.error_frames = frames
    return SimpleNamespace(verdict=verdict, findings=[])


USER = ["/work/model.py", 5, "forward"]
PAD = ["/site-packages/torch/nn/functional.py", 5823, "pad"]  # F.pad, torch.nn.functional.pad or an alias
GUARDED = ["/site-packages/torch/fx/experimental/sym_node.py", 576, "guard_bool"]


def test_a_data_dependent_guard_names_pad_tensor_value_only_where_raised_inside_pad():
    in_pad = list(repair_candidates._keyed_by_error([_failed([USER, PAD, GUARDED])]))
    elsewhere = list(repair_candidates._keyed_by_error([_failed([USER, GUARDED])]))  # `x[: int(v)]`
    assert "pad_tensor_value" in in_pad and "pad_tensor_value" not in elsewhere


def test_records_of_one_argument_pattern_are_not_named_by_their_op():
    assert (key_of_op("pad"), key_of_op("any")) == ("pad", "any")


def test_the_pools_own_records_win_the_all_table():
    """decompose.decomposition_table(None): a later record overwrites an earlier one's targets."""
    winner = {}
    for d in (d for d in DECOMPOSITIONS if d.drop_in and d.at_export):
        for target in d.targets:
            winner[target] = d.key
    assert winner["torch.nn.functional.adaptive_avg_pool2d"] == "adaptive_avg_pool2d"
    assert winner["torch.nn.functional.avg_pool2d"] != "unbatched_pool"
    assert winner["torch.nn.functional.lp_pool2d"] == "unbatched_pool"  # no record of its own


def test_guard_lines_accumulate_within_a_session_and_not_across(tmp_path, monkeypatch):
    text = "x = 1\n"
    evidence.add_guard_lines(tmp_path, text, {"specialized": {3}})
    evidence.add_guard_lines(tmp_path, text, {"specialized": {5}, "tensor_len": set()})
    assert _stored(tmp_path, text)["specialized"] == [3, 5]
    monkeypatch.setattr(evidence, "_SESSION", "another")
    evidence.add_guard_lines(tmp_path, text, {"specialized": {7}})
    assert _stored(tmp_path, text)["specialized"] == [7]


def _stored(folder, text: str) -> dict:
    import json

    return json.loads(evidence.evidence_path(folder, text).read_text(encoding="utf-8"))
