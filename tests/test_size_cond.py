"""ONX613's rewrite computes what the `if` computed: the fixture's classes before and after
(tests/fixtures/ONX613), on inputs on both sides of every test, bit for bit; and the helper is the
plain `if` outside torch.export."""
from __future__ import annotations

from pathlib import Path

import pytest
import torch

from fixture_exports import load

FIXTURE = Path(__file__).parent / "fixtures" / "ONX613" / "size_branches"
ORIGINAL, FIXED = load(FIXTURE.with_suffix(".py")), load(FIXTURE.with_suffix(".fixed.py"))


def _inputs(name: str) -> list[tuple]:
    torch.manual_seed(0)
    if name == "Proposals":  # more and fewer scores than k=40
        return [(torch.rand(2, 5, 6), torch.rand(60, 4)), (torch.rand(1, 3, 4), torch.rand(12, 4))]
    if name == "Window":  # a width that is and is not a multiple of 8
        return [(torch.rand(2, 5), torch.rand(2, 8)), (torch.rand(2, 16), torch.rand(2, 8))]
    if name == "Shortcut":  # the table's length and another
        return [(torch.rand(2, 5, 3), torch.rand(5, 3)), (torch.rand(2, 7, 3), torch.rand(5, 3))]
    if name == "Picked":  # more and fewer than 4 columns
        return [(torch.rand(2, 6),), (torch.rand(2, 3),)]
    if name == "Kept":  # both sides of each test: rows around 2 and 4, columns around 1, 2 and 3
        return [(torch.rand(rows, columns),) for rows, columns in ((1, 4), (3, 3), (5, 2), (3, 1))]
    if name == "CrossCache":  # the cache's length and another, and no cache (the `elif` chain's arms)
        return [(torch.rand(2, 3), torch.rand(2, 3)), (torch.rand(2, 3), torch.rand(2, 5)), (torch.rand(2, 3), None)]
    if name == "PairShortcut":  # both comparisons true, each one false alone
        return [(torch.rand(16, 3, 3),), (torch.rand(16, 3, 2),), (torch.rand(8, 3, 3),)]
    return [(torch.rand(1, 4),), (torch.rand(3, 4),)]  # Early: one row, several


@pytest.mark.parametrize("name", ["Proposals", "Window", "Early", "Shortcut", "Picked", "Kept", "CrossCache",
                                  "PairShortcut"])
def test_the_rewritten_branches_compute_what_the_if_did(name):
    before, after = getattr(ORIGINAL, name)(), getattr(FIXED, name)()
    after.load_state_dict(before.state_dict())
    for inputs in _inputs(name):
        assert torch.equal(before(*inputs), after(*inputs))


def test_the_helper_is_the_if_outside_export():
    calls = []
    branch = (lambda t: calls.append("true") or t + 1), (lambda t: calls.append("false") or t - 1)
    x = torch.ones(2)
    assert torch.equal(FIXED._onnx_size_cond(3 > 2, *branch, (x,)), x + 1)
    assert torch.equal(FIXED._onnx_size_cond(False, *branch, (x,)), x - 1)
    assert calls == ["true", "false"]


def test_a_name_updated_in_place_after_the_if_is_given_back():
    """`y = out[:1]` in the branch, `y += 1` after it: the view the branch made is returned, so the
    update still writes the first row of `out` (tests/fixtures/ONX613/not_moved.py)."""
    original = load(FIXTURE.with_name("not_moved.py"))
    rewritten = load(FIXTURE.with_name("not_moved.fixed.py"))
    for rows in (4, 2):
        results = []
        for module in (original, rewritten):
            out = torch.zeros(2, 3)
            results.append((module.Moved().grow(torch.ones(rows, 3), out), out))
        assert all(torch.equal(a, b) for a, b in zip(*results))


VALUES = FIXTURE.with_name("value_branches")
VALUES_BEFORE, VALUES_AFTER = load(VALUES.with_suffix(".py")), load(VALUES.with_suffix(".unsafe.py"))


def _value_inputs(name: str) -> list[tuple]:
    torch.manual_seed(0)
    if name == "Normalize":
        return [(torch.randn(2, 5), torch.tensor(0.5))]
    x = torch.randn(3, 4)
    cases = [(x + 5,), (x - 5,), (torch.full((2, 3), float("nan")),)]  # both sides, and a NaN
    if name == "Grouped":  # `k` None and given
        return [(*c, k) for c in cases for k in (None, torch.ones(1))]
    return cases + [(torch.full((2, 3), float("inf")),)] if name == "Spanned" else cases


@pytest.mark.parametrize("name", ["Normalize", "Gate", "Mixed", "Item", "Grouped", "Spanned"])
@pytest.mark.parametrize("calibrated", [True, False])
def test_the_branches_on_tensor_values_compute_what_the_if_did(name, calibrated):
    """ONX613 on `if`s on tensor values (tests/fixtures/ONX613/value_branches): the same result as the
    `if`, bit for bit, on both sides of each test (NaN buffers and a switched-off flag too)."""
    before, after = getattr(VALUES_BEFORE, name)(), getattr(VALUES_AFTER, name)()
    if name == "Normalize" and not calibrated:
        before.high.fill_(float("nan"))
    for flag in ("enabled", "force"):  # Mixed's and Grouped's Python operands, both ways
        if hasattr(before, flag):
            setattr(before, flag, calibrated)
            setattr(after, flag, calibrated)
    after.load_state_dict(before.state_dict())
    for inputs in _value_inputs(name):
        torch.testing.assert_close(after(*inputs), before(*inputs), rtol=0, atol=0, equal_nan=True)


def test_the_value_helper_is_the_if_outside_export():
    calls = []
    branch = (lambda t: calls.append("true") or t + 1), (lambda t: calls.append("false") or t - 1)
    x = torch.ones(2)
    from onnxfix.decompositions.value_cond import _onnx_value_cond  # ONX601's value_select takes most value `if`s

    assert torch.equal(_onnx_value_cond(torch.tensor(True), *branch, (x,)), x + 1)
    assert torch.equal(_onnx_value_cond(torch.tensor([0.0]) > 1, *branch, (x,)), x - 1)
    assert torch.equal(_onnx_value_cond(False, *branch, (x,)), x - 1)
    assert calls == ["true", "false", "false"]


def test_a_transposed_branch_result_is_taken_by_torch_cond():
    """torch.cond refuses outputs whose strides are not row-major (a transposed result): the helper
    copies each output contiguous under export, and torch.export keeps both branches."""
    from onnxfix.decompositions import load_function

    size_cond = load_function("size_cond")

    class Transposed(torch.nn.Module):
        def forward(self, x):
            return size_cond(x.shape[0] > 4, lambda: x.transpose(0, 1) * 1, lambda: x * 2)

    dims = {0: torch.export.Dim.DYNAMIC, 1: torch.export.Dim.DYNAMIC}
    program = torch.export.export(Transposed(), (torch.randn(6, 6),), dynamic_shapes=(dims,))
    for rows in (3, 7):
        x = torch.randn(rows, rows)
        assert torch.equal(program.module()(x), Transposed()(x))


def test_branches_of_different_shapes_are_selected_while_tracing():
    """DINOv2's shortcut (`if npatch == n and w == h: return table`, else a table of another
    length): torch.cond refuses branches whose shapes differ, and the legacy tracer would freeze the
    test; `_onnx_fitted_select` runs both and the traced test picks, so the trace is right on both
    sides of it."""
    table = torch.arange(12.0).reshape(1, 4, 3)

    def shortcut(x):
        n, w = x.shape[1], x.shape[2]
        return FIXED._onnx_size_cond((n == 4) & (w == 3), lambda: table, lambda: x[:, :, :3] * 2 + table[:, :1])

    traced = torch.jit.trace(shortcut, (torch.rand(1, 6, 5),), check_trace=False)
    for x in (torch.rand(1, 4, 3), torch.rand(1, 7, 5), torch.rand(1, 2, 4)):
        assert torch.equal(traced(x), shortcut(x))
