"""ONX601's `_onnx_value_select` (an `if` on a tensor's value whose branches became functions): in
eager the `if` itself, only the branch taken running; the fixture's classes compute the same before
and after, on both sides of every test; while exporting, branches of one shape are selected with
torch.where and branches of different shapes go to torch.cond (dynamo), on inputs of both signs."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import torch

from fixture_exports import load

FIXTURE = Path(__file__).parent / "fixtures" / "ONX601" / "fast_path"
ORIGINAL, FIXED = load(FIXTURE.with_suffix(".py")), load(FIXTURE.with_suffix(".fixed.py"))
select = FIXED._onnx_value_select


def test_eager_runs_only_the_branch_taken():
    calls = []
    branches = (lambda t: calls.append("true") or t + 1), (lambda t: calls.append("false") or (t - 1)[:1])
    x = torch.ones(3)
    assert torch.equal(select(torch.tensor(True), *branches, (x,)), x + 1)
    assert torch.equal(select(torch.tensor([0.0]) > 1, *branches, (x,)), (x - 1)[:1])
    assert select(False, *branches, (x,)).shape == (1,)
    assert calls == ["true", "false", "false"]


def _policy_inputs(starts):
    torch.manual_seed(0)
    n = len(starts)
    return (torch.randn(n, 8), torch.randn(1, n, 16), torch.randn(1, n, 16), torch.tensor(starts))


@pytest.mark.parametrize("name, cases", [
    ("RecurrentPolicy", [_policy_inputs([0.0, 0.0, 0.0]), _policy_inputs([1.0, 0.0, 1.0, 0.0])]),
    ("Branches", [(torch.rand(2, 3), torch.rand(2, 3)), (-torch.rand(2, 3), torch.rand(2, 3))]),
])
def test_the_rewritten_branches_compute_what_the_if_did(name, cases):
    torch.manual_seed(0)
    before = getattr(ORIGINAL, name)()
    after = getattr(FIXED, name)()
    after.load_state_dict(before.state_dict())
    for inputs in cases:
        expected, actual = before(*inputs), after(*inputs)
        flat = torch.utils._pytree.tree_leaves
        assert all(torch.equal(a, b) for a, b in zip(flat(expected), flat(actual), strict=True))


class Shapes(torch.nn.Module):
    """Branches of different widths: no torch.where; torch.cond under torch.export."""

    def forward(self, x):
        def wide():
            return x[:, :3] * 2

        def narrow():
            return x[:, :2] - 1

        return select(x.sum() > 0, wide, narrow)


def test_branches_of_different_shapes_export_through_torch_cond(tmp_path):
    path = str(tmp_path / "shapes.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Shapes(), (torch.rand(2, 4),), path, dynamo=True, verbose=False,
                          dynamic_shapes=({0: torch.export.Dim("batch")},))
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    for x in (torch.rand(3, 4), -torch.rand(5, 4)):
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        np.testing.assert_array_equal(got, Shapes()(x).numpy())


class BoolBranches(torch.nn.Module):
    """Both branches bool masks: selected with And/Or (onnxruntime has no Where on bool)."""

    def forward(self, x):
        return select(x.sum() > 0, lambda: x > 0.5, lambda: x < -0.5)


@pytest.mark.parametrize("dynamo", [True, False])
def test_bool_branches_export_and_run_in_onnxruntime(tmp_path, dynamo):
    path = str(tmp_path / "bools.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            torch.onnx.export(BoolBranches(), (torch.rand(2, 4),), path, dynamo=True, verbose=False,
                              dynamic_shapes=({0: torch.export.Dim("batch")},))
        else:
            torch.onnx.export(BoolBranches(), (torch.rand(2, 4),), path, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "batch"}})
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    for x in (torch.rand(3, 4), -torch.rand(5, 4)):
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        np.testing.assert_array_equal(got, BoolBranches()(x).numpy())


def test_a_short_circuit_joined_into_one_tensor_is_never_a_safe_select(tmp_path):
    """`not (a or b)` (and `bool(a or b)`, `flag and (a or b)`) of tensor tests selects with
    `~(a | b)`, which evaluates `b` where the test stopped at `a`: an index `a` guards may raise in
    eager (review of `a | b` where texts), so the fix is unsafe."""
    from static_findings import findings

    found = findings(tmp_path, """
    import torch
    from torch import nn


    class Guarded(nn.Module):
        def forward(self, x, idx, check: bool):
            if not ((idx < 0).any() or (x[idx] > 0).any()):
                y = x * 2
                y = y + 1
            else:
                y = x - 1
                y = y * 3
            if check and ((idx < 0).any() or (x[idx] > 0).any()):
                z = y * 2
                z = z + 1
            else:
                z = y - 1
                z = z * 3
            return z
    """)
    assert [safe for code, _, safe in found if code in ("ONX601", "ONX613")] == [False, False]
