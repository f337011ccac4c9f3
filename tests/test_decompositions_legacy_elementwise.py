"""Eager equivalence of the legacy elementwise decompositions (registry_legacy_elementwise.py and
fmax/fmin): each helper's export branch against the torch op on edge values (0, -0, tiny and
huge magnitudes, inf, NaN, integers), in float32 and float64."""

from __future__ import annotations

import pytest
import torch

from onnxfix.decompositions import load_function

NAN, INF = float("nan"), float("inf")
EDGES = [0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 1e-4, -3e-4, 0.3, -0.7, 1.0, -1.0, 2.5, -2.5, 19.9, 20.1,
         -40.0, 85.0, -88.0, 1e9, -1e12, INF, -INF, NAN]


@pytest.fixture(autouse=True)
def exporting(monkeypatch):
    """The legacy export branch (what the legacy exporter traces)."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    monkeypatch.setattr(torch.compiler, "is_exporting", lambda: False)


def values(dtype):
    return torch.cat([torch.tensor(EDGES, dtype=dtype), torch.randn(200, generator=torch.Generator().manual_seed(0),
                                                                    dtype=dtype) * 6])


def close(got, want, rtol):
    assert got.dtype == want.dtype and got.shape == want.shape
    torch.testing.assert_close(got, want, rtol=rtol, atol=0.0, equal_nan=True)


# (key, torch op, relative tolerance in float32, float64): the rounding of the composition.
UNARY = [
    ("trunc", torch.trunc, 0.0, 0.0),
    ("expm1", torch.expm1, 1e-6, 1e-14),
    ("sinh", torch.sinh, 2e-6, 1e-14),
    ("cosh", torch.cosh, 2e-6, 1e-14),
    ("asinh", torch.asinh, 1e-6, 1e-14),
    ("acosh", torch.acosh, 1e-6, 1e-14),
    ("atanh", torch.atanh, 2e-6, 1e-14),
    ("erfc", torch.erfc, 3e-6, 1e-8),
    ("exp2", torch.exp2, 1e-6, 1e-14),
    ("deg2rad", torch.deg2rad, 1e-7, 1e-15),
    ("rad2deg", torch.rad2deg, 1e-7, 1e-15),
]


@pytest.mark.parametrize(("key", "op", "rtol32", "rtol64"), UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_unary_helper_matches_the_op_on_edge_values(key, op, rtol32, rtol64, dtype):
    x = values(dtype)
    want = op(x)
    got = load_function(key)(x)
    finite = want.isfinite() & (want.abs() > torch.finfo(dtype).tiny)  # subnormal results may flush
    close(got[~finite & ~want.isfinite()], want[~finite & ~want.isfinite()], 0.0)  # inf and NaN exactly
    close(got[finite], want[finite], rtol32 if dtype == torch.float32 else rtol64)


@pytest.mark.parametrize("key", ["trunc", "exp2", "deg2rad", "rad2deg"])
def test_integer_inputs_give_torchs_dtype(key):
    x = torch.arange(-5, 6)
    want = getattr(torch, key)(x)
    close(load_function(key)(x), want, 1e-7)


@pytest.mark.parametrize("key", ["fmax", "fmin"])
def test_fmax_fmin_ignore_a_nan_on_either_side(key, monkeypatch):
    monkeypatch.setattr(torch.compiler, "is_exporting", lambda: True)  # both exporters decompose these
    a = torch.tensor([1.0, NAN, 2.0, NAN, -0.0, INF, -INF])
    b = torch.tensor([2.0, 3.0, NAN, NAN, 0.0, 1.0, NAN])
    close(load_function(key)(a, b), getattr(torch, key)(a, b), 0.0)
    ints = torch.tensor([3, -1, 7])
    close(load_function(key)(ints, torch.tensor([1, 5, 7])), getattr(torch, key)(ints, torch.tensor([1, 5, 7])), 0.0)
    close(load_function(key)(ints, torch.tensor([0.5, NAN, 9.0])), getattr(torch, key)(ints, torch.tensor([0.5, NAN, 9.0])), 0.0)


def test_addcdiv_and_threshold():
    a, b, c = torch.randn(3, 7, generator=torch.Generator().manual_seed(1)).unbind()
    close(load_function("addcdiv")(a, b, c, value=-0.25), torch.addcdiv(a, b, c, value=-0.25), 1e-6)
    x = torch.tensor([0.1, 0.09, 0.11, NAN, -INF, INF])
    close(load_function("threshold")(x, 0.1, 20.0), torch.nn.functional.threshold(x, 0.1, 20.0), 0.0)
    y = x.clone()
    load_function("threshold")(y, 0.1, 20.0, True)
    close(y, torch.nn.functional.threshold(x, 0.1, 20.0), 0.0)


def test_composites_on_edge_arguments():
    a = torch.tensor([1.0, NAN, INF, -INF, 0.0, 1e-9, 3.0])
    b = torch.tensor([1.0 + 1e-6, NAN, INF, INF, -0.0, 0.0, 3.5])
    for kwargs in ({}, {"equal_nan": True}, {"rtol": 0.2, "atol": 0.0}):
        close(load_function("isclose")(a, b, **kwargs).float(), torch.isclose(a, b, **kwargs).float(), 0.0)
    ints = torch.tensor([3, 5, -2])
    close(load_function("isclose")(ints, torch.tensor([3, 6, -2]), 0.1, 0.5).float(),
          torch.isclose(ints, torch.tensor([3, 6, -2]), 0.1, 0.5).float(), 0.0)
    close(load_function("isposinf")(a).float(), torch.isposinf(a).float(), 0.0)
    m, v = torch.randn(3, 4, generator=torch.Generator().manual_seed(2)), torch.randn(4, generator=torch.Generator().manual_seed(3))
    nan_input = torch.full((3,), NAN)
    close(load_function("addmv")(nan_input, m, v, beta=0), torch.addmv(nan_input, m, v, beta=0), 1e-6)
    close(load_function("addr")(torch.full((3, 4), NAN), m[:, 0], v, beta=0), torch.addr(torch.full((3, 4), NAN), m[:, 0], v, beta=0), 1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_losses_reduce_as_torch(reduction):
    g = torch.Generator().manual_seed(4)
    x, y = torch.randn(4, 5, generator=g), torch.randn(4, 5, generator=g)
    F = torch.nn.functional
    sign = torch.sign(y[:, 0])
    cases = [("l1_loss", (x, y), {}), ("smooth_l1_loss", (x, y), {"beta": 0.0}), ("huber_loss", (x, y), {"delta": 2.0}),
             ("binary_cross_entropy", (torch.sigmoid(x), torch.sigmoid(y)), {"weight": y.abs()}),
             ("margin_ranking_loss", (x[:, 0], y[:, 0], sign), {"margin": 0.3}),
             ("cosine_embedding_loss", (x, y, sign), {"margin": -0.2}),
             ("triplet_margin_loss", (x, y, x.flip(0)), {"p": 1, "swap": True}),
             ("soft_margin_loss", (x, torch.sign(y)), {}), ("hinge_embedding_loss", (x, torch.sign(y)), {}),
             ("poisson_nll_loss", (x.abs(), y.abs() * 3), {"log_input": False, "full": True})]
    for key, args, kwargs in cases:
        want = getattr(F, key)(*args, reduction=reduction, **kwargs)
        close(load_function(key)(*args, reduction=reduction, **kwargs), want, 2e-6)
