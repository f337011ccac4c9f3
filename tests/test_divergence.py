"""First divergence (issue 12, item 2): when an export is SILENTLY-WRONG, the first user line
whose ONNX value differs from eager PyTorch is reported (ONX945) before the output-level
symptom (ONX940), for both exporters, on live exports. Models: tests/divergence_models/ and
tests/evidence_models/item_name.py."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from onnxfix.exporter import plan, render
from onnxfix.exporter.session import NoProgress, run_target

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _lines(result) -> list[str]:
    return [render.finding_line(f) for r in result.results for f in r.findings]


def test_dynamo_specialized_slice_is_found_at_its_line_not_at_the_output():
    """`int(x.size(1) / 2)` specializes the slice end: the output is wrong two lines later;
    the first value that differs is the slice, at line 11."""
    target = plan.make_target("tests/divergence_models/half_width.py:HalfWidth", exporters=("dynamo",))
    result = run_target(target, NoProgress())
    (exported,) = result.results
    assert (exported.verdict.verdict, exported.verdict.failing_probe) == ("SILENTLY-WRONG", "probe 1 (user)")
    assert _lines(result) == [  # the guard that specialized the width (why), then where values differ
        "tests/divergence_models/half_width.py:11:23: ONX914 [dynamo] dynamic x.shape[1] (\"width\", s27 in the guard) "
        "specialized by guard Eq(TruncToInt(IntTrueDiv(s27, 2)), 3): the exported model works only for x.shape[1] in "
        "6..7; it fails e.g. for 8; a size made a Python number with int(): keep it a SymInt or a tensor (the ONX203 "
        "pattern) (fixed by ONX203 at tests/divergence_models/half_width.py:11)",
        "tests/divergence_models/half_width.py:11:23: ONX945 [dynamo] first value that differs from PyTorch on "
        "probe 1 (user): Slice node_slice_2: shape (3, 3), expected (3, 4) "
        "(fixed by ONX203 at tests/divergence_models/half_width.py:11)",
        "tests/divergence_models/half_width.py:8:1: ONX940 [dynamo] ONNX output differs from PyTorch on probe 1 (user): "
        "output 0: max abs error 2.61 (rel 0.279) (likely fixed by ONX203 at tests/divergence_models/half_width.py:11)",
    ]


def test_legacy_baked_item_is_found_where_the_constant_is_used():
    """`s = scale.item()` is baked in; the first ONNX value that differs is the Mul at line 15
    (node doc_string of a verbose legacy re-export), shown before the output-level ONX940."""
    target = plan.make_target("tests/evidence_models/item_name.py:ScaledLinear", exporters=("legacy",))
    result = run_target(target, NoProgress())
    (exported,) = result.results
    assert exported.verdict.divergence["node"] == "Mul /Mul"
    assert _lines(result)[1:] == [
        "tests/evidence_models/item_name.py:15:1: ONX945 [legacy] first value that differs from PyTorch on "
        "probe 1 (user): Mul /Mul: max abs error 1.86 (likely fixed by ONX201 at tests/evidence_models/item_name.py:14)",
        "tests/evidence_models/item_name.py:8:1: ONX940 [legacy] ONNX output differs from PyTorch on probe 1 (user): "
        "output 0: max abs error 1.86 (rel 7) (likely fixed by ONX201 at tests/evidence_models/item_name.py:14)",
    ]


def test_legacy_failing_node_upstream_of_the_first_value_is_the_root_line():
    """Split sizes frozen by `len()` (Detic): onnxruntime fails in the Split, and every later value
    depends on it; the first divergence names the Split at its own line, not the first value
    after it that eager computed."""
    target = plan.make_target("tests/export_models/sized_instances.py:make_model", exporters=("legacy",))
    result = run_target(target, NoProgress())
    (exported,) = result.results
    assert exported.verdict.verdict == "ORT-FAILS"
    assert exported.verdict.divergence["node"].startswith("Split ")
    (line,) = [text for text in _lines(result) if "ONX945" in text]
    assert line.startswith("tests/export_models/sized_instances.py:39:1: ONX945 [legacy] first value that differs from "
                           "PyTorch on probe 1 (user): Split /Split: onnxruntime fails in it:")


def test_legacy_divergence_is_searched_in_the_model_as_exported_under_flat_outputs():
    """The divergence search re-exports the model for its nodes' source lines: the model as it was
    exported (the flat-outputs wrapper: the dict's float is no legacy output), not as given, whose
    re-export fails and leaves the output-level finding alone."""
    target = replace(plan.make_target("tests/divergence_models/dict_item_scale.py:make_model", exporters=("legacy",)),
                     decompose=("flat_outputs",))
    result = run_target(target, NoProgress())
    (exported,) = result.results
    assert exported.verdict.verdict == "SILENTLY-WRONG"
    assert exported.verdict.divergence["node"] == "Mul /model/Mul", exported.verdict.divergence  # in the wrapper


def test_a_phase_wrapped_on_the_negative_real_axis_says_why():
    """torch.angle of a spectrum whose imaginary part is 0 in exact arithmetic (the DC bin of a real
    signal with a negative mean): eager's pi is onnxruntime's -pi. The first divergence says that no
    export reproduces a sign rounding decides; any other difference gets no such note."""
    import math

    import numpy as np
    import torch

    from onnxfix.exporter.divergence import _phase_wrap

    eager = torch.tensor([math.pi, 0.5, -1.0])
    assert _phase_wrap(eager, np.array([-math.pi, 0.5, -1.0])).startswith("; by 2 pi at 1 value(s) of +-pi")
    assert _phase_wrap(eager, np.array([-math.pi, 0.503, -1.0])).startswith("; by 2 pi")  # a noisy phase beside it
    assert _phase_wrap(eager, np.array([-math.pi, 2.0, -1.0])) == ""  # another value differs grossly
    assert _phase_wrap(torch.tensor([1.0, 2.0]), np.array([1.0, 2.0 + 2 * math.pi])) == ""  # not at +-pi
