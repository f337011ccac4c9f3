"""pad_tensor_value, any_nonzero and unbatched_pool beyond their records' proofs: the export branch
(the flag forced True) on bool, integer and float inputs, negative pads, NaN and uint8, unbatched and
batched pools, against the op itself."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from onnxfix.decompositions import load_function

pad_tensor_value = load_function("pad_tensor_value")
any_nonzero = load_function("any_nonzero")


@pytest.fixture
def exporting(monkeypatch):
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


@pytest.mark.parametrize("dtype", [torch.bool, torch.int64, torch.float16, torch.float32])
@pytest.mark.parametrize("pad", [(2, 0), (1, 3, 0, 2), (-1, 2), (0, 0, -1, 1)])
def test_pad_with_a_tensor_value_is_the_op(exporting, dtype, pad):
    x = (torch.randn(2, 4, 5) * 3).to(dtype)
    for value in (torch.tensor(True), torch.tensor(-7), torch.tensor(2.5), torch.tensor(0.5), x.flatten()[0]):
        expected = F.pad(x, pad, value=value.item())
        assert torch.equal(pad_tensor_value(x, pad, value=value), expected)


def test_pad_with_a_number_or_another_mode_runs_the_op(exporting):
    x = torch.randn(1, 2, 5)
    assert torch.equal(pad_tensor_value(x, (2, 1), value=0.5), F.pad(x, (2, 1), value=0.5))
    assert torch.equal(pad_tensor_value(x, (2, 1), mode="reflect"), F.pad(x, (2, 1), mode="reflect"))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8, torch.float32, torch.float64])
def test_any_of_a_non_bool_tensor_is_the_op(exporting, dtype):
    x = (torch.randn(4, 3, 5) * (torch.randn(4, 3, 5) > 1)).to(dtype)
    if dtype.is_floating_point:
        x[0, 0, 0], x[1, 1] = float("nan"), -0.3
    else:
        x[1, 1] = -1 if dtype != torch.uint8 else 1
    for args in [(), (-1,), (1, True)]:
        expected = torch.any(x, *args)
        got = any_nonzero(x, *args)
        assert got.dtype == expected.dtype and torch.equal(got, expected)


unbatched_pool = load_function("unbatched_pool")


@pytest.mark.parametrize("op, shape, args, kwargs", [
    (F.avg_pool1d, (3, 9), (2,), {}),
    (F.avg_pool3d, (2, 4, 6, 3), ((2, 2, 1), (2, 2, 1)), {}),
    (F.max_pool2d, (3, 7, 8), (2,), {"stride": 1}),
    (F.max_pool1d, (3, 9), (2,), {"return_indices": True}),
    (F.lp_pool2d, (3, 6, 8), (2, 2), {}),
    (F.adaptive_avg_pool2d, (3, 7, 9), ((3, 4),), {}),
    (F.avg_pool2d, (2, 3, 6, 8), (2,), {}),  # batched: the op itself
])
def test_a_pool_of_an_unbatched_input_is_the_op(exporting, op, shape, args, kwargs):
    """The legacy branch (the flag forced True, torch.export not running) against the op."""
    x = torch.randn(*shape)
    expected, got = op(x, *args, **kwargs), unbatched_pool(op, x, *args, **kwargs)
    pairs = zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]
    assert all(e.shape == g.shape and torch.equal(e, g) for e, g in pairs)
