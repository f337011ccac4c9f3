"""(a) Special-function decompositions (onnxfix/decompositions/registry_special.py) against eager
torch on dense grids in float32 and float64, with the regions each helper switches between
(recurrence, series, reflection, asymptotic), poles, zeros of the function and their neighbouring
floats, infinities, NaN, -0.0, integer and half inputs, empty and batched tensors. Accuracy is
measured against the true value (tests/reference_values.py), never against torch's bits: ATen's
kernels round differently on each CPU capability. Where a helper reproduces ATen's formula, it is
also held to torch's own error point by point (`excess_ulps`): where the formula is
ill-conditioned both are off, and the helper may add only rounding. The bounds here are the ones
documented in the registry (error_bound); they hold under ATEN_CPU_CAPABILITY=default, avx2 and
avx512."""

from __future__ import annotations

import math

import pytest
import torch

from onnxfix.decompositions import BY_KEY, load_function
from reference_values import excess_ulps, representable, subsample, true_mvlgamma, true_values, true_zeta, ulps

NAN, INF = float("nan"), float("inf")
FLOATS = [torch.float32, torch.float64]


@pytest.fixture(autouse=True)
def exporting(monkeypatch):
    """Every test here runs the helpers' export branch (what both exporters trace): a guarded
    helper returns the torch op itself when torch.onnx.is_in_onnx_export() is False, which
    tests/test_decompositions_records.py checks bit for bit."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


def helper(key):
    return load_function(key)


def neighbours(value, dtype, count=40):
    """`value` and the `count` floats on each side of it."""
    centre = torch.tensor(value, dtype=dtype)
    out, up, down = [centre], centre, centre
    for _ in range(count):
        up = torch.nextafter(up, torch.tensor(INF, dtype=dtype))
        down = torch.nextafter(down, torch.tensor(-INF, dtype=dtype))
        out += [up, down]
    return torch.stack(out)


def grid(dtype, special_points=()):
    parts = [
        torch.linspace(-30, 30, 120001, dtype=torch.float64),
        torch.linspace(-0.6, 3.2, 100001, dtype=torch.float64),
        torch.logspace(-40, 38, 10001, dtype=torch.float64),
        -torch.logspace(-40, 6, 10001, dtype=torch.float64),
        torch.arange(-50, 60, dtype=torch.float64),
        torch.arange(-50, 60, dtype=torch.float64) + 0.5,
        torch.tensor([0.0, -0.0, INF, -INF, NAN, 1e-300, -1e-300, 1e300, 4e36, 5e36]),
    ]
    x = torch.cat(parts).to(dtype)
    return torch.cat([x] + [neighbours(p, dtype) for p in special_points])


def check_same_specials(got, want):
    """NaN where torch has NaN, the same infinities, finite where torch is finite."""
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    inf = torch.isinf(want)
    assert torch.equal(got[inf], want[inf])
    assert torch.isfinite(got[torch.isfinite(want)]).all()


F32, F64 = torch.float32, torch.float64
# Accuracy against the true value (ulps as in reference_values.ulps; the floor and the region are
# per test) and the most a helper may add to torch's own error at any point (excess_ulps).
BOUND = {
    ("digamma", F32): 8.0, ("digamma", F64): 8.0,
    ("i0", F32): 4.0, ("i0", F64): 4.0, ("i0e", F32): 4.0, ("i0e", F64): 4.0,
    ("i1", F32): 11.0, ("i1", F64): 8.0, ("i1e", F32): 11.0, ("i1e", F64): 8.0,
    ("ndtri", F32): 5.0, ("ndtri", F64): 4.0,
    # float64: ATen's tables are only float32-accurate above 2 (4e-7 absolute, 1e-8 up to 5):
    # the helper reproduces them (|J0| <= 1, so this is the absolute error over eps)
    ("bessel_j0", F32): 2.0, ("bessel_j0", F64): 4e-7 / torch.finfo(F64).eps,
}
EXCESS = {
    ("digamma", F32): 4.0, ("digamma", F64): 8.0,
    ("i0", F32): 4.0, ("i0", F64): 4.0, ("i0e", F32): 4.0, ("i0e", F64): 4.0,
    ("i1", F32): 8.0, ("i1", F64): 8.0, ("i1e", F32): 8.0, ("i1e", F64): 8.0,
    ("ndtri", F32): 4.0, ("ndtri", F64): 3.0,
    ("bessel_j0", F32): 1.0, ("bessel_j0", F64): 1.0,
}


def measured(key, x, kernel, keep_last=0):
    """(x, the helper's values, torch's values, the true values): float64 grids are subsampled,
    mpmath being slow; the specials (NaN, infinities) are first checked on the whole grid."""
    got, want = helper(key)(x), kernel(x)
    check_same_specials(got, want)
    if x.dtype == torch.float64:
        index = subsample(torch.arange(x.numel()), keep_last=keep_last)
        x, got, want = x[index], got[index], want[index]
    return x, got, want, true_values(key, x)


def ulp_errors(got, want, floor):
    """|got - want| in units of eps * max(|want|, floor), over the finite values."""
    finite = torch.isfinite(want)
    g, w = got[finite], want[finite]
    scale = torch.clamp(w.abs(), min=floor) * torch.finfo(w.dtype).eps
    return (g - w).abs() / scale


# ---- lgamma ------------------------------------------------------------------------------------
LGAMMA_ZEROS = (1.0, 2.0, -2.4570247, -2.7476826)


@pytest.mark.parametrize("dtype", FLOATS)
def test_lgamma_dense_grid_within_documented_bound(dtype):
    x, got, _, true = measured("lgamma", grid(dtype, LGAMMA_ZEROS), torch.lgamma, keep_last=8 * 81)
    positive = x[representable(true, dtype)] > -0.5
    relative = ulps(got, true, floor=torch.finfo(dtype).tiny)
    absolute = ulps(got, true, floor=1.0)
    if dtype == torch.float32:  # computed in float64, then rounded once
        assert relative.max() <= 0.501 and absolute.max() <= 0.501
    else:
        assert relative[positive].max() <= 4.0
        assert absolute.max() <= 8.0


def test_lgamma_float32_near_negative_zeros_is_correctly_rounded():
    # lgamma(-2.4570248) = -1.1287842529645816e-07 (mpmath, 50 digits); torch's vectorized
    # (AVX2) lgammaf is 5e4 ulp away there, the float64 evaluation is not.
    x = torch.tensor([-2.4570248126983643])
    true = -1.1287842529645816e-07
    assert abs(helper("lgamma")(x).item() - true) <= 0.5 * abs(true) * torch.finfo(torch.float32).eps


def test_lgamma_poles_infinities_and_signed_zero():
    x = torch.tensor([0.0, -0.0, -1.0, -2.0, -7.0, INF, -INF, NAN, 1.0, 2.0, 0.5, -0.5, -1.5])
    for dtype in FLOATS:
        got, want = helper("lgamma")(x.to(dtype)), torch.lgamma(x.to(dtype))
        check_same_specials(got, want)
        assert torch.equal(got[:7], torch.full((7,), INF, dtype=dtype))
        assert got[8] == 0 and got[9] == 0  # lgamma(1) = lgamma(2) = 0 exactly
        torch.testing.assert_close(got, want, rtol=1e-6, atol=0, equal_nan=True)


def test_lgamma_float32_overflows_where_the_true_value_does():
    # lgamma(x) passes float32's largest value between 4.0850e36 and 4.0851e36. (torch's
    # vectorized AVX2 kernel overflows from 4.0371e36 on, its scalar kernel where the true value
    # does: a helper cannot follow both.)
    x = torch.cat([neighbours(4.0371103180829464e36, torch.float32, 3), torch.linspace(4.0e36, 4.2e36, 2001)])
    true = true_values("lgamma", x)
    assert torch.equal(torch.isinf(helper("lgamma")(x)), torch.isinf(true.to(torch.float32)))
    assert torch.isinf(true.to(torch.float32)).any() and torch.isfinite(true.to(torch.float32)).any()


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float16, torch.bfloat16])
def test_lgamma_other_dtypes_promote_like_torch(dtype):
    x = torch.arange(1, 40).to(dtype)
    got = helper("lgamma")(x)
    assert got.dtype == torch.lgamma(x).dtype
    assert ulps(got, true_values("lgamma", x.float()), floor=1.0).max() <= 0.501  # rounded once


def test_lgamma_shapes_batched_empty_size_one():
    g = torch.Generator().manual_seed(0)
    for shape in [(2, 3, 5), (0,), (4, 0), (1,), ()]:
        x = torch.randn(shape, generator=g) * 10
        got, want = helper("lgamma")(x), torch.lgamma(x)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-6)


# ---- digamma -----------------------------------------------------------------------------------
DIGAMMA_ZEROS = (1.4616321449683622, -0.5040830082644554, -1.5734263265277237, -2.6107208684441446)


@pytest.mark.parametrize("dtype", FLOATS)
def test_digamma_dense_grid_same_formula_as_aten(dtype):
    x, got, want, true = measured("digamma", grid(dtype, DIGAMMA_ZEROS), torch.digamma, keep_last=8 * 81)
    positive = x[representable(true, dtype)] > 0
    assert ulps(got, true, floor=1.0)[positive].max() <= BOUND["digamma", dtype]
    # below 0 the reflection's pi / tan(pi x) makes ATen's formula itself ill-conditioned
    assert excess_ulps(got, want, true, floor=1.0).max() <= EXCESS["digamma", dtype]


def test_digamma_poles_signed_zero_and_infinities():
    x = torch.tensor([0.0, -0.0, -1.0, -2.0, -30.0, INF, -INF, NAN, 10.0, 1.0, -0.5, 1e18, 1e-30])
    for dtype in FLOATS:
        got, want = helper("digamma")(x.to(dtype)), torch.digamma(x.to(dtype))
        check_same_specials(got, want)
        assert got[0] == -INF and got[1] == INF  # the sign of -x, as torch
        assert torch.equal(got[8:10], want[8:10])  # psi(10) constant, recurrence down from 1
        torch.testing.assert_close(got, want, rtol=1e-6, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.float16, torch.bfloat16])
def test_digamma_other_dtypes_like_torch(dtype):
    x = torch.arange(1, 40).to(dtype)
    got = helper("digamma")(x)
    assert got.dtype == torch.digamma(x).dtype
    x = torch.cat([x, torch.linspace(-5.3, 5.3, 101).to(dtype)]) if dtype.is_floating_point else x
    got = helper("digamma")(x)
    # integers compute in float32; half rounds the float32 value once
    bound = BOUND["digamma", F32] if got.dtype == F32 else 0.51
    assert ulps(got, true_values("digamma", x.float()), floor=1.0).max() <= bound


def test_digamma_shapes_batched_empty_size_one():
    g = torch.Generator().manual_seed(1)
    for shape in [(2, 3, 5), (0,), (4, 0), (1,), ()]:
        x = torch.randn(shape, generator=g) * 10
        got, want = helper("digamma")(x), torch.digamma(x)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-5)


# ---- registry ----------------------------------------------------------------------------------
def test_special_entries_document_their_bounds():
    assert BY_KEY["digamma"].exact and not BY_KEY["lgamma"].exact
    assert all(BY_KEY[key].error_bound for key in ("lgamma", "digamma", "zeta", "polygamma", "mvlgamma", "i0", "i0e", "i1", "i1e", "ndtri", "bessel_j0", "frexp"))


# ---- zeta --------------------------------------------------------------------------------------
def zeta_grid(dtype):
    xs = torch.cat([torch.linspace(0.5, 30, 240, dtype=torch.float64), torch.arange(1, 30, dtype=torch.float64),
                    torch.tensor([1.0, 1.0 + 1e-6, 50, 100, INF, NAN])]).to(dtype)
    qs = torch.cat([torch.linspace(-35, 40, 1201, dtype=torch.float64), torch.logspace(-10, 10, 160, dtype=torch.float64),
                    torch.arange(-35, 5, dtype=torch.float64), torch.tensor([0.0, -0.0, INF, -INF, NAN, 1e-30])]).to(dtype)
    return torch.meshgrid(xs, qs, indexing="ij")


@pytest.mark.parametrize("dtype", FLOATS)
def test_zeta_grid_same_formula_as_aten(dtype):
    x, q = zeta_grid(dtype)
    got, want = helper("zeta")(x, q), torch.special.zeta(x, q)
    supported = q > -31
    check_same_specials(got[supported], want[supported])
    positive = (supported & (q > 0) & torch.isfinite(want) & torch.isfinite(x)).flatten()
    index = positive.nonzero().flatten()
    if dtype == F64:
        index = subsample(index, count=800)
    g, xs, qs = got.flatten()[index], x.flatten()[index], q.flatten()[index]
    true = true_zeta(xs, qs)
    assert ulps(g, true, floor=torch.finfo(dtype).tiny).max() <= (0.501 if dtype == F32 else 4.0)
    negative = supported & (q < 0) & torch.isfinite(want)
    largest = (q[negative].double() - torch.round(q[negative].double())).abs().pow(-x[negative].double())
    scale = torch.maximum(want[negative].double().abs(), largest) * torch.finfo(dtype).eps
    assert ((got[negative].double() - want[negative].double()).abs() / scale).max() <= 2.0
    # q <= -31: where ATen's sum has not converged within the 40 unrolled terms, NaN
    # (documented, the reason the fix is unsafe); where it has, the same value.
    beyond = (q <= -31) & torch.isfinite(want)
    cut = beyond & torch.isnan(got)
    assert cut.any()
    same = beyond & ~cut
    torch.testing.assert_close(got[same], want[same], rtol=4 * torch.finfo(dtype).eps, atol=0)


def test_zeta_domain_and_scalar_arguments():
    x = torch.tensor([1.0, 0.5, 2.0, 2.0, 2.5, 3.0, 2.0])
    q = torch.tensor([1.0, 1.0, 0.0, -2.0, -1.5, -1.5, 1.0])
    got, want = helper("zeta")(x, q), torch.special.zeta(x, q)
    check_same_specials(got, want)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=0, equal_nan=True)
    torch.testing.assert_close(helper("zeta")(2.0, q.abs() + 1), torch.special.zeta(2.0, q.abs() + 1), rtol=1e-6, atol=0)
    torch.testing.assert_close(helper("zeta")(x + 1, 3.0), torch.special.zeta(x + 1, 3.0), rtol=1e-6, atol=0)
    ints = helper("zeta")(torch.tensor([2, 3]), torch.tensor([1, 2]))
    assert ints.dtype == torch.special.zeta(torch.tensor([2, 3]), torch.tensor([1, 2])).dtype
    batched = helper("zeta")(torch.rand(2, 3, 1) + 2, torch.rand(4) + 1)
    assert batched.shape == (2, 3, 4)


# ---- polygamma ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 6])
def test_polygamma_grid_same_formula_as_aten(n, dtype):
    x = torch.cat([torch.linspace(-30, 30, 30001, dtype=torch.float64), torch.logspace(-30, 30, 1001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, INF, -INF, NAN, -1, -2, 1, 2])]).to(dtype)
    got, want = helper("polygamma")(n, x), torch.polygamma(n, x)
    check_same_specials(got, want)
    finite = torch.isfinite(want)
    normal = finite & (x > 0) & (want.abs() >= torch.finfo(dtype).tiny * 1e6)  # zeta's float rounding is subnormal below
    assert ulp_errors(got[normal], want[normal], floor=0.0).max() <= (300.0 if n == 0 else 3.0)  # n = 0: digamma's zero
    largest = ((x.double() - torch.round(x.double())).abs().pow(-(n + 1.0)) * math.factorial(n)).nan_to_num(0.0)  # 0 at +-inf
    scale = torch.maximum(torch.maximum(want.double().abs(), largest), torch.ones_like(largest)) * torch.finfo(dtype).eps
    assert ((got.double() - want.double()).abs() / scale)[finite].max() <= 8.0


def test_polygamma_other_dtypes():
    x = torch.arange(1, 20)
    for n in (1, 2):
        assert torch.equal(helper("polygamma")(n, x).isfinite(), torch.polygamma(n, x).isfinite())
        torch.testing.assert_close(helper("polygamma")(n, x), torch.polygamma(n, x), rtol=1e-6, atol=0)
    half = torch.linspace(-3.3, 5.1, 50, dtype=torch.float16)
    torch.testing.assert_close(helper("polygamma")(1, half), torch.polygamma(1, half), rtol=2e-3, atol=0)


# ---- mvlgamma ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [1, 2, 3, 6])
def test_mvlgamma_within_documented_bound(p, dtype):
    x = ((p - 1) / 2 + torch.logspace(-6, 4, 20001, dtype=torch.float64)).to(dtype)
    x = x[x > (p - 1) / 2]
    got = helper("mvlgamma")(x, p)
    assert got.dtype == torch.mvlgamma(x, p).dtype
    if dtype == torch.float64:
        index = subsample(torch.arange(x.numel()), count=1000)
        x, got = x[index], got[index]
    true = true_mvlgamma(x, p)
    terms = torch.lgamma(x.double().unsqueeze(-1) - torch.arange(p, dtype=torch.float64) * 0.5).abs().amax(-1)
    scale = torch.maximum(true.abs(), terms).clamp(min=1.0) * torch.finfo(dtype).eps
    assert ((got.double() - true).abs() / scale).max() <= (2.0 if dtype == torch.float32 else 2.5)


def test_mvlgamma_integers_methods_and_batches():
    x = torch.tensor([[3, 4, 7], [2, 9, 30]])
    torch.testing.assert_close(helper("mvlgamma")(x, 2), torch.mvlgamma(x, 2), rtol=1e-6, atol=0)
    y = torch.rand(2, 0, 3) + 3
    assert helper("mvlgamma")(y, 3).shape == torch.mvlgamma(y, 3).shape


# ---- modified Bessel functions -----------------------------------------------------------------
BESSEL = {"i0": torch.special.i0, "i0e": torch.special.i0e, "i1": torch.special.i1, "i1e": torch.special.i1e}


def bessel_grid(dtype):
    x = torch.cat([torch.linspace(-100, 100, 200001, dtype=torch.float64), torch.logspace(-40, 38, 10001, dtype=torch.float64),
                   -torch.logspace(-40, 3, 2001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, INF, -INF, NAN, 700, 710, 88, 89])]).to(dtype)
    return torch.cat([x, neighbours(8.0, dtype, 20), neighbours(-8.0, dtype, 20)])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("key", sorted(BESSEL))
def test_bessel_grid_same_formula_as_aten(key, dtype):
    x, got, want, true = measured(key, bessel_grid(dtype), BESSEL[key], keep_last=9 + 2 * 41)
    finite = torch.isfinite(want[representable(true, dtype)])  # I0 and I1 overflow as in torch, before the true value
    relative = ulps(got, true, floor=torch.finfo(dtype).tiny)[finite]
    assert relative.max() <= BOUND[key, dtype]
    assert excess_ulps(got, want, true, floor=torch.finfo(dtype).tiny)[finite].max() <= EXCESS[key, dtype]


@pytest.mark.parametrize("key", sorted(BESSEL))
def test_bessel_other_dtypes_and_shapes(key):
    # Not bit for bit: the helper's exp and polynomials run as vectorized tensor ops, ATen's
    # kernel as scalar code, so they may differ by the ulps EXCESS allows a helper to add.
    # Integers are promoted to float32 as torch does; the sign of a zero is exact.
    ints = torch.arange(-12, 13)
    got, want = helper(key)(ints), BESSEL[key](ints)
    assert got.dtype == want.dtype == F32
    torch.testing.assert_close(got, want, rtol=EXCESS[key, F32] * torch.finfo(F32).eps, atol=0)
    half = torch.linspace(-9, 9, 101, dtype=torch.bfloat16)
    got = helper(key)(half)
    assert got.dtype == BESSEL[key](half).dtype
    assert ulps(got, true_values(key, half), floor=torch.finfo(F32).tiny).max() <= 0.5  # rounded once from float32
    for shape in [(2, 3, 4), (0,), (1,), ()]:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(3)) * 10
        got = helper(key)(x)
        assert got.shape == x.shape and got.dtype == x.dtype
        errors = ulps(got, true_values(key, x), floor=torch.finfo(F32).tiny)
        assert errors.numel() == 0 or errors.max() <= BOUND[key, F32]
    zeros = torch.tensor([0.0, -0.0])  # i0, i0e: 1; i1, i1e: the zero itself, its sign included
    got, want = helper(key)(zeros), BESSEL[key](zeros)
    assert torch.equal(got.signbit(), want.signbit())
    torch.testing.assert_close(got, want, rtol=EXCESS[key, F32] * torch.finfo(F32).eps, atol=0)


def test_i0_aliases():
    x = torch.linspace(-20, 20, 81)
    torch.testing.assert_close(helper("i0")(x), torch.i0(x), rtol=4 * torch.finfo(torch.float32).eps, atol=0)
    torch.testing.assert_close(helper("i0")(x), x.i0(), rtol=4 * torch.finfo(torch.float32).eps, atol=0)


# ---- ndtri -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_ndtri_grid_same_formula_as_aten(dtype):
    x = torch.cat([torch.linspace(0, 1, 200001, dtype=torch.float64), torch.logspace(-300, -0.5, 10001, dtype=torch.float64),
                   1 - torch.logspace(-16, -0.5, 10001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, 1.0, -0.1, 1.1, INF, -INF, NAN, 0.5, 1e-320])]).to(dtype)
    x = torch.cat([x, neighbours(0.13533528323661269189, dtype, 20), neighbours(1 - 0.13533528323661269189, dtype, 20)])
    x, got, want, true = measured("ndtri", x, torch.special.ndtri, keep_last=10 + 2 * 41)
    assert ulps(got, true, floor=torch.finfo(dtype).tiny).max() <= BOUND["ndtri", dtype]
    assert excess_ulps(got, want, true, floor=torch.finfo(dtype).tiny).max() <= EXCESS["ndtri", dtype]


def test_ndtri_dtypes_and_shapes():
    ints = torch.tensor([0, 1, 2, -1])  # -inf, inf, NaN, NaN: exact by construction
    torch.testing.assert_close(helper("ndtri")(ints), torch.special.ndtri(ints), rtol=0, atol=0, equal_nan=True)
    # (torch has no float16 ndtri on CPU)
    for shape in [(2, 3, 4), (0,), (1,), ()]:
        x = torch.rand(shape, generator=torch.Generator().manual_seed(4))
        torch.testing.assert_close(helper("ndtri")(x), torch.special.ndtri(x), rtol=5 * torch.finfo(torch.float32).eps, atol=0)


# ---- bessel_j0 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_bessel_j0_grid_same_formula_as_aten(dtype):
    x = torch.cat([torch.linspace(-60, 60, 200001, dtype=torch.float64), torch.logspace(-40, 38, 10001, dtype=torch.float64),
                   -torch.logspace(-40, 10, 2001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, 1e-5, INF, -INF, NAN, 2.404825557695773])]).to(dtype)
    x = torch.cat([x, neighbours(5.0, dtype, 20), neighbours(-5.0, dtype, 20), neighbours(1e-5, dtype, 5)])
    x, got, want, true = measured("bessel_j0", x, torch.special.bessel_j0, keep_last=7 + 2 * 41 + 11)
    moderate = x[representable(true, dtype)].abs() <= 60  # beyond, ATen's argument reduction loses digits
    assert ulps(got, true, floor=1.0)[moderate].max() <= BOUND["bessel_j0", dtype]
    assert excess_ulps(got, want, true, floor=1.0).max() <= EXCESS["bessel_j0", dtype]


def test_bessel_j0_dtypes_and_shapes():
    ints = torch.arange(-12, 13)
    torch.testing.assert_close(helper("bessel_j0")(ints), torch.special.bessel_j0(ints), rtol=0, atol=2e-7)
    for shape in [(2, 3, 4), (0,), (1,), ()]:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(5)) * 10
        torch.testing.assert_close(helper("bessel_j0")(x), torch.special.bessel_j0(x), rtol=0, atol=2e-7)


# ---- frexp -------------------------------------------------------------------------------------
INT_VIEW = {torch.float64: torch.int64, torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16}


@pytest.mark.parametrize("dtype", sorted(INT_VIEW, key=str))
def test_frexp_bit_identical_on_random_bit_patterns(dtype):
    # bit for bit by construction: frexp's result is exact, and the helper's log2 estimate of
    # the exponent (rounded differently on each kernel path, but never off by more than one) is
    # corrected by an exact halving or doubling that brings the mantissa into [0.5, 1)
    g = torch.Generator().manual_seed(0)
    width = INT_VIEW[dtype]
    info = torch.iinfo(width)
    x = torch.randint(info.min, info.max, (200000,), generator=g, dtype=torch.int64).to(width).view(dtype)
    finfo = torch.finfo(dtype)
    smallest = torch.nextafter(torch.zeros(1, dtype=dtype), torch.ones(1, dtype=dtype))
    powers = (2.0 ** torch.arange(-60, 60, dtype=torch.float64)).to(dtype)
    x = torch.cat([x, torch.tensor([0.0, -0.0, INF, -INF, NAN, finfo.tiny, finfo.max, -finfo.max], dtype=dtype),
                   smallest, -smallest, powers, torch.nextafter(powers, torch.zeros_like(powers)),
                   torch.nextafter(powers, torch.full_like(powers, INF))])
    got, want = helper("frexp")(x), torch.frexp(x)
    assert type(got) is type(want)
    assert got.exponent.dtype == torch.int32 and got.mantissa.dtype == dtype
    assert torch.equal(got.exponent, want.exponent)
    nan = torch.isnan(want.mantissa)
    assert torch.equal(torch.isnan(got.mantissa), nan)
    assert torch.equal(got.mantissa[~nan].view(width), want.mantissa[~nan].view(width))  # -0.0 included


def test_frexp_shapes_and_method():
    for shape in [(2, 3, 4), (0,), (1,), ()]:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(6)) * 1e3
        got, want = helper("frexp")(x), x.frexp()
        assert torch.equal(got.mantissa, want.mantissa) and torch.equal(got.exponent, want.exponent)
