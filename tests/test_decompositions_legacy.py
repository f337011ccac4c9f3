"""(a) Eager equivalence of the legacy-only decompositions (onnxfix/decompositions/registry_legacy.py):
each helper equals the original op in eager PyTorch on random inputs and edge cases (negatives,
ties, NaN/inf, empty and size-1 dims, dtypes, batches). Exact keys are compared bit for bit where
the helper repeats ATen's arithmetic, to float rounding otherwise. (b) is each
record's `proof` (run by tests/test_decompositions.py)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from onnxfix.decompositions import load_function

NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def exporting(monkeypatch):
    """Every test here runs the helpers' export branch (what both exporters trace): a guarded
    helper returns the torch op itself when torch.onnx.is_in_onnx_export() is False, which
    tests/test_decompositions_records.py checks bit for bit."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


def helper(key):
    return load_function(key)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# "Same arithmetic, other rounding": ATen's vectorised CPU kernels (Sleef exp/log1p/sin) and
# the tensor ops the helper uses may differ by an ulp.
ULP = {torch.float32: (4e-7, 1e-7), torch.float64: (1e-15, 1e-16), torch.complex64: (4e-7, 1e-7)}


def same(got, want, *, rtol=0.0, atol=0.0, ulp=False):
    """Bit-identical by default (rtol=atol=0), NaN equal to NaN, same dtype and shape; ulp=True
    allows an ulp of rounding (see ULP)."""
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want, strict=True):
            same(g, w, rtol=rtol, atol=atol, ulp=ulp)
        return
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if ulp:
        rtol, atol = ULP.get(want.dtype, (rtol, atol))
    if want.dtype.is_floating_point or want.dtype.is_complex:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(got, want), (got, want)


def specials(*shape, seed=0, dtype=torch.float32):
    x = (torch.randn(*shape, generator=gen(seed)) * 3).to(dtype)
    flat = x.view(-1)
    flat[1::7] = NAN
    flat[3::11] = INF
    flat[5::13] = -INF
    flat[2::9] = 0.0
    flat[4::17] = -0.0
    return x


def ints(*shape, lo=-50, hi=50, seed=0, dtype=torch.int64):
    return torch.randint(lo, hi, shape, generator=gen(seed)).to(dtype)


# ---- ONX518: silently wrong in legacy -----------------------------------------------------------
INT_TYPES = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]


@pytest.mark.parametrize("dtype", INT_TYPES + [torch.float32, torch.float64])
def test_floor_divide_matches_eager(dtype):
    lo = 0 if dtype == torch.uint8 else -100
    a = torch.randint(lo, 100, (4, 9), generator=gen(1)).to(dtype)
    b = torch.randint(1, 7, (4, 9), generator=gen(2)).to(dtype)
    if dtype != torch.uint8:
        b = b * torch.where(torch.randint(0, 2, (4, 9), generator=gen(3)) == 0, -1, 1).to(dtype)
    f = helper("floor_divide")
    same(f(a, b), torch.floor_divide(a, b))
    same(f(a, 3), torch.floor_divide(a, 3))
    same(f(a[:, :1], b), torch.floor_divide(a[:, :1], b))  # broadcasting
    same(f(a[:0], b[:0]), torch.floor_divide(a[:0], b[:0]))  # empty
    if dtype.is_floating_point:
        x = specials(3, 8, dtype=dtype)
        same(f(x, x.flip(1)), torch.floor_divide(x, x.flip(1)))


def test_floor_divide_mixed_types():
    f = helper("floor_divide")
    a = ints(3, 5)
    same(f(a, 2.5), torch.floor_divide(a, 2.5))
    same(f(a.float(), a.clamp(min=1)), torch.floor_divide(a.float(), a.clamp(min=1)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_floor_divide_near_whole_quotients(dtype):
    """Values on a 0.1 grid: quotients that round onto a whole number, where Floor(Div(a, b)) (both
    exporters' translation) is 1 too high; the export branch repeats ATen's kernel bit for bit
    (bfloat16 is left out: ATen's own kernel paths round its steps differently)."""
    a = (ints(40, 50, lo=-400, hi=400, seed=5).to(dtype) * 0.1).to(dtype)
    b = (ints(40, 50, lo=1, hi=6, seed=6).to(dtype) * 0.1).to(dtype) * torch.where(ints(40, 50, lo=0, hi=2) == 0, -1, 1)
    want = torch.floor_divide(a, b)
    assert not torch.equal(torch.floor(a / b), want)  # the translation's arithmetic is wrong here
    same(helper("floor_divide")(a, b), want)
    same(helper("floor_divide")(a, 0.3), torch.floor_divide(a, 0.3))


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_bitwise_right_shift_matches_eager(dtype):
    bits = torch.iinfo(dtype).bits
    info = torch.iinfo(dtype)
    x = torch.randint(info.min, info.max, (6, 40), generator=gen(4), dtype=torch.int64).to(dtype)
    x[0, :4] = torch.tensor([info.min, info.max, -1 if info.min < 0 else 0, 0]).to(dtype)
    shift = torch.arange(40).remainder(bits + 3).reshape(1, 40).expand(6, 40).to(dtype)  # 0 .. width + 2
    f = helper("bitwise_right_shift")
    same(f(x, shift), torch.bitwise_right_shift(x, shift))
    for s in (0, 1, 3, bits - 1):
        same(f(x, s), torch.bitwise_right_shift(x, s))
    same(f(x[:0], shift[:0]), torch.bitwise_right_shift(x[:0], shift[:0]))


def test_bitwise_right_shift_negative_shift_and_broadcast():
    f = helper("bitwise_right_shift")
    x = ints(4, 6, lo=-1000, hi=1000)
    s = ints(4, 6, lo=-3, hi=3, seed=1)
    same(f(x, s), torch.bitwise_right_shift(x, s))
    same(f(x, s[:1]), torch.bitwise_right_shift(x, s[:1]))
    same(f(x.to(torch.int32), s), torch.bitwise_right_shift(x.to(torch.int32), s))  # int32 >> int64


@pytest.mark.parametrize("beta, threshold", [(2.0, 1.0), (0.5, 20.0), (1.0, 20.0), (3, 5), (-1.0, 2.0)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softplus_matches_eager(beta, threshold, dtype):
    x = specials(4, 30, dtype=dtype) * 4
    x[0] = torch.linspace(-30, 30, 30, dtype=dtype)
    same(helper("softplus")(x, beta, threshold), F.softplus(x, beta, threshold), ulp=True)
    same(helper("softplus")(x, beta=beta, threshold=threshold), F.softplus(x, beta=beta, threshold=threshold), ulp=True)
    same(helper("softplus")(x[:, :0], beta), F.softplus(x[:, :0], beta))


def test_softplus_at_the_threshold():
    x = torch.tensor([0.5, 0.49999997, 0.50000006, 10.0])
    same(helper("softplus")(x, beta=2.0, threshold=1.0), F.softplus(x, beta=2.0, threshold=1.0), ulp=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_index_add_duplicates_match_eager(dtype):
    x = torch.randn(5, 3, generator=gen(5)).to(dtype) if dtype.is_floating_point else ints(5, 3)
    index = torch.tensor([0, 2, 2, 4, 0, 0, 1, 4])
    source = torch.randn(8, 3, generator=gen(6)).to(dtype) if dtype.is_floating_point else ints(8, 3, seed=6)
    f = helper("index_add")
    same(f(x, 0, index, source), x.index_add(0, index, source), rtol=1e-6, atol=1e-6)
    same(f(x, 0, index, source, alpha=2), x.index_add(0, index, source, alpha=2), rtol=1e-6, atol=1e-6)
    t = x.t().contiguous()
    same(f(t, 1, index, source.t()), t.index_add(1, index, source.t()), rtol=1e-6, atol=1e-6)
    same(f(t, -1, index, source.t()), t.index_add(-1, index, source.t()), rtol=1e-6, atol=1e-6)
    same(f(x, 0, index[:0], source[:0]), x.index_add(0, index[:0], source[:0]))


def test_index_add_batched_3d():
    x = torch.randn(2, 4, 3, generator=gen(7))
    index = torch.tensor([3, 3, 0, 1, 3])
    source = torch.randn(2, 5, 3, generator=gen(8))
    same(helper("index_add")(x, 1, index, source), x.index_add(1, index, source), rtol=1e-6, atol=1e-6)


def test_index_put_accumulate_duplicates_match_eager():
    f = helper("index_put")
    x = torch.randn(5, generator=gen(9))
    i = torch.tensor([0, 2, 2, 4, 0, 0, -1, 4])
    v = torch.randn(8, generator=gen(10))
    same(f(x, (i,), v, accumulate=True), x.index_put((i,), v, accumulate=True), rtol=1e-6, atol=1e-6)
    same(f(x, (i,), v, True), x.index_put((i,), v, True), rtol=1e-6, atol=1e-6)
    m = torch.randn(4, 3, 2, generator=gen(11))  # two index tensors, broadcast, trailing dims
    rows = torch.tensor([[0, 3, 3], [1, 0, 3]])
    cols = torch.tensor([2, 2, -3])
    vals = torch.randn(2, 3, 2, generator=gen(12))
    same(f(m, (rows, cols), vals, accumulate=True), m.index_put((rows, cols), vals, accumulate=True), rtol=1e-6, atol=1e-6)
    scalar = torch.tensor(1.5)  # a 0-d value broadcast to every indexed row
    same(f(m, (rows,), scalar, accumulate=True), m.index_put((rows,), scalar, accumulate=True), rtol=1e-6, atol=1e-6)
    counts = torch.zeros(6, dtype=torch.int64)  # the classic bincount-by-index_put idiom
    idx = ints(20, lo=0, hi=6, seed=3)
    same(f(counts, (idx,), torch.ones(20, dtype=torch.int64), accumulate=True),
         counts.index_put((idx,), torch.ones(20, dtype=torch.int64), accumulate=True))
    mask = torch.tensor([True, False, True, False, True])  # a mask cannot repeat: the original op
    same(f(x, (mask,), torch.ones(3), accumulate=True), x.index_put((mask,), torch.ones(3), accumulate=True))
    same(f(x, (i[:0],), v[:0], accumulate=True), x.index_put((i[:0],), v[:0], accumulate=True))


# ---- ONX517: legacy export fails ----------------------------------------------------------------
FLOATS = [torch.float32, torch.float64]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("key", ["logaddexp", "logaddexp2"])
def test_logaddexp_matches_eager(key, dtype):
    a, b = specials(5, 13, dtype=dtype), specials(5, 13, seed=1, dtype=dtype)
    a[0, :4] = torch.tensor([INF, -INF, INF, -INF], dtype=dtype)
    b[0, :4] = torch.tensor([INF, -INF, -INF, INF], dtype=dtype)
    f, torch_f = helper(key), getattr(torch, key)
    same(f(a, b), torch_f(a, b), rtol=2e-7 if dtype == torch.float32 else 1e-15, atol=1e-7)
    same(f(a, a), torch_f(a, a), rtol=2e-7 if dtype == torch.float32 else 1e-15, atol=1e-7)
    same(f(a[:, :1], b), torch_f(a[:, :1], b), rtol=2e-7, atol=1e-7)


@pytest.mark.parametrize("dim", [1, 0, -1])
def test_logcumsumexp_matches_eager(dim):
    x = torch.randn(4, 9, generator=gen(2)) * 10
    same(helper("logcumsumexp")(x, dim), torch.logcumsumexp(x, dim), rtol=1e-6, atol=1e-6)
    s = specials(4, 9)
    same(helper("logcumsumexp")(s, dim), torch.logcumsumexp(s, dim), rtol=1e-6, atol=1e-6)
    d = x.double()
    same(helper("logcumsumexp")(d, dim), torch.logcumsumexp(d, dim), rtol=1e-12, atol=1e-12)
    same(helper("logcumsumexp")(x[:, :0], 1), torch.logcumsumexp(x[:, :0], 1))
    same(helper("logcumsumexp")(torch.full((2, 3), -INF), 1), torch.logcumsumexp(torch.full((2, 3), -INF), 1))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nansum_nanmean_match_eager(dtype):
    x = specials(4, 6, 5, dtype=dtype)
    x[0] = NAN  # an all-NaN slice
    x = torch.where(x.isinf(), 1.0, x).to(dtype)  # inf - inf would be NaN in both: keep sums finite
    for key, torch_f in (("nansum", torch.nansum), ("nanmean", torch.nanmean)):
        f = helper(key)
        same(f(x), torch_f(x), rtol=1e-6, atol=1e-6)
        for dim in (1, -1, (0, 2)):
            same(f(x, dim), torch_f(x, dim), rtol=1e-6, atol=1e-6)
            same(f(x, dim, keepdim=True), torch_f(x, dim, keepdim=True), rtol=1e-6, atol=1e-6)
        same(f(x, 1, dtype=torch.float64), torch_f(x, 1, dtype=torch.float64), rtol=1e-12, atol=1e-12)
        same(f(x[:, :0], 1), torch_f(x[:, :0], 1))
    same(helper("nansum")(ints(3, 4), 1), torch.nansum(ints(3, 4), 1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_count_nonzero_matches_eager(dtype):
    x = ints(3, 4, 5, lo=-1, hi=2).to(dtype)
    f = helper("count_nonzero")
    for dim in (None, 1, -1, (0, 2)):
        same(f(x, dim), torch.count_nonzero(x, dim))
    same(f(specials(3, 5)), torch.count_nonzero(specials(3, 5)))
    same(f(x[:0], 1), torch.count_nonzero(x[:0], 1))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64, torch.uint8])
def test_trace_matches_eager(dtype):
    for shape in ((4, 4), (3, 5), (5, 2), (1, 1), (0, 3)):
        x = ints(*shape, lo=-3, hi=4).to(dtype)
        same(helper("trace")(x), torch.trace(x))
    s = specials(4, 4)  # a NaN on the diagonal: NaN whatever the order (small integers above: exact sums)
    same(helper("trace")(s), torch.trace(s))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_diff_matches_eager(dtype):
    x = ints(3, 7, lo=-3, hi=4).to(dtype)
    f = helper("diff")
    for n in (0, 1, 2, 3):
        for dim in (1, 0, -1):
            same(f(x, n, dim), torch.diff(x, n, dim))
    same(f(x, n=2, dim=1, prepend=x[:, :1], append=x[:, -2:]), torch.diff(x, n=2, dim=1, prepend=x[:, :1], append=x[:, -2:]))
    same(f(x, dim=0, append=x[:1]), torch.diff(x, dim=0, append=x[:1]))
    same(f(x, 9, 1), torch.diff(x, 9, 1))  # more steps than elements: empty
    s = specials(2, 9)
    same(f(s), torch.diff(s))


@pytest.mark.parametrize("dtype", FLOATS)
def test_frac_sgn_isneginf_signbit_match_eager(dtype):
    # bit for bit by construction: sgn of a real tensor is torch.sign (the kernel torch.sgn
    # runs), signbit and isneginf compare, frac is ATen's x - trunc(x)
    x = specials(4, 20, dtype=dtype) * 3.7
    same(helper("frac")(x), torch.frac(x))
    same(helper("sgn")(x), torch.sgn(x))
    same(helper("isneginf")(x), torch.isneginf(x))
    finite_or_inf = torch.where(x.isnan(), 1.0, x).to(dtype)  # a NaN's sign bit is unreadable (unsafe fix)
    same(helper("signbit")(finite_or_inf), torch.signbit(finite_or_inf))
    assert bool(helper("signbit")(torch.tensor(-0.0))) and not bool(helper("signbit")(torch.tensor(0.0)))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_sgn_isneginf_signbit_integers(dtype):
    x = ints(3, 9, lo=-5 if dtype != torch.uint8 else 0, hi=6).to(dtype)
    same(helper("sgn")(x), torch.sgn(x))
    same(helper("isneginf")(x), torch.isneginf(x))
    same(helper("signbit")(x), torch.signbit(x))


def test_sgn_complex():
    z = torch.complex(specials(3, 8).nan_to_num(), specials(3, 8, seed=1).nan_to_num(0.0, 5.0, -5.0))
    z[0, 0] = 0
    same(helper("sgn")(z), torch.sgn(z), ulp=True)


@pytest.mark.parametrize("dtype", FLOATS)
def test_heaviside_matches_eager(dtype):
    x = specials(4, 11, dtype=dtype)
    values = torch.randn(4, 11, generator=gen(3)).to(dtype)
    same(helper("heaviside")(x, values), torch.heaviside(x, values))
    same(helper("heaviside")(x, values[:1, :1]), torch.heaviside(x, values[:1, :1]))
    i = ints(3, 5, lo=-2, hi=3)
    same(helper("heaviside")(i, ints(3, 5, seed=1)), torch.heaviside(i, ints(3, 5, seed=1)))


def test_float_power_matches_eager():
    # bit for bit by construction: ATen's float_power is the cast to float64 (complex128), then
    # pow, the helper's two ops
    f = helper("float_power")
    x = specials(3, 7)
    same(f(x, 2), torch.float_power(x, 2))
    same(f(x, 0.5), torch.float_power(x, 0.5))
    e = ints(3, 7, lo=-3, hi=4, seed=2)
    same(f(x, e), torch.float_power(x, e))
    same(f(ints(3, 7, lo=-4, hi=5), 3), torch.float_power(ints(3, 7, lo=-4, hi=5), 3))
    same(f(2.0, e), torch.float_power(2.0, e))


def test_ldexp_matches_eager():
    x = specials(3, 7)
    e = ints(3, 7, lo=-130, hi=130, seed=2)
    same(helper("ldexp")(x, e), torch.ldexp(x, e))
    same(helper("ldexp")(x.double(), e), torch.ldexp(x.double(), e))
    same(helper("ldexp")(x, e.float()), torch.ldexp(x, e.float()))


@pytest.mark.parametrize("dtype", FLOATS)
def test_sinc_xlogy_xlog1py_entr_ndtr_match_eager(dtype):
    x = specials(4, 25, dtype=dtype)
    x[0, :5] = torch.tensor([1e-20, -1e-30, 1.0, 2.0, 0.5], dtype=dtype)
    y = specials(4, 25, seed=1, dtype=dtype)
    same(helper("sinc")(x), torch.special.sinc(x), ulp=True)
    # integers: the same float32 product pi * n in both, then torch.sin (vectorized) against
    # ATen's scalar libm sin, each within an ulp: relative, since sinc(n) is tiny but not 0
    same(helper("sinc")(torch.arange(-3, 4)), torch.special.sinc(torch.arange(-3, 4)), rtol=ULP[torch.float32][0], atol=0.0)
    same(helper("xlogy")(x, y), torch.special.xlogy(x, y), ulp=True)
    same(helper("xlogy")(x, y.abs()), torch.xlogy(x, y.abs()), ulp=True)
    same(helper("xlogy")(2.0, y), torch.special.xlogy(2.0, y), ulp=True)
    same(helper("xlogy")(x, 3), torch.special.xlogy(x, 3), ulp=True)
    same(helper("xlog1py")(x, y), torch.special.xlog1py(x, y), ulp=True)
    same(helper("xlog1py")(x, y.abs()), torch.special.xlog1py(x, y.abs()), ulp=True)
    same(helper("entr")(x), torch.special.entr(x), ulp=True)
    same(helper("ndtr")(x), torch.special.ndtr(x), ulp=True)
    # bit for bit by construction: ATen's ndtr is composite, (1 + erf(x * sqrt(1/2))) * 0.5, the
    # helper's ops in the same order
    same(helper("ndtr")(torch.linspace(-40, 40, 161, dtype=dtype)), torch.special.ndtr(torch.linspace(-40, 40, 161, dtype=dtype)))


@pytest.mark.parametrize("dtype, erfcx_bound, log_ndtr_bound", [(torch.float32, 1.2e-6, 5e-6), (torch.float64, 1.2e-9, 1.2e-9)])
def test_erfcx_and_log_ndtr_error_bounds(dtype, erfcx_bound, log_ndtr_bound):
    """The documented bounds (unsafe fixes): relative error against torch on dense grids."""
    x = torch.linspace(-9, 60, 200001, dtype=torch.float64).to(dtype)
    want, got = torch.special.erfcx(x).double(), helper("erfcx")(x).double()
    assert ((got - want).abs() / want.abs()).max() <= erfcx_bound
    x = torch.linspace(-40, 40, 200001, dtype=torch.float64).to(dtype)
    want, got = torch.special.log_ndtr(x).double(), helper("log_ndtr")(x).double()
    normal = want.abs() >= torch.finfo(dtype).tiny  # below the smallest normal: may flush to 0
    assert ((got - want).abs() / want.abs())[normal].max() <= log_ndtr_bound
    assert (got[~normal].abs() <= torch.finfo(dtype).tiny).all()
    special = torch.tensor([NAN, INF, -INF, 0.0, -0.0, 1e30, -1e30, 1.5, -1.5], dtype=dtype)
    same(helper("erfcx")(special), torch.special.erfcx(special), rtol=erfcx_bound, atol=0.0)
    same(helper("log_ndtr")(special), torch.special.log_ndtr(special), rtol=log_ndtr_bound, atol=0.0)


@pytest.mark.parametrize("shapes", [((2, 3), (3, 2)), ((3,), (4,)), ((2, 1, 3), (4, 2)), ((2,), (2, 3, 1)), ((0, 2), (2, 2))])
def test_kron_matches_eager(shapes):
    a = torch.randn(*shapes[0], generator=gen(4))
    b = torch.randn(*shapes[1], generator=gen(5))
    same(helper("kron")(a, b), torch.kron(a, b))
    ia, ib = ints(*shapes[0]), ints(*shapes[1], seed=1)
    same(helper("kron")(ia, ib), torch.kron(ia, ib))


def test_vecdot_and_dist_match_eager():
    x, y = torch.randn(3, 4, 5, generator=gen(6)), torch.randn(3, 4, 5, generator=gen(7))
    same(helper("vecdot")(x, y), torch.linalg.vecdot(x, y), rtol=1e-6, atol=1e-6)
    same(helper("vecdot")(x, y, dim=1), torch.linalg.vecdot(x, y, dim=1), rtol=1e-6, atol=1e-6)
    same(helper("vecdot")(x, y[:1]), torch.linalg.vecdot(x, y[:1]), rtol=1e-6, atol=1e-6)
    zx, zy = torch.complex(x, y), torch.complex(y, x)
    same(helper("vecdot")(zx, zy), torch.linalg.vecdot(zx, zy), rtol=1e-6, atol=1e-6)
    for p in (3, 2, 1, 0, INF, -INF, 0.5):
        same(helper("dist")(x, y, p), torch.dist(x, y, p), rtol=1e-6, atol=1e-6)
    same(helper("dist")(x, y), torch.dist(x, y), rtol=1e-6, atol=1e-6)
    same(helper("dist")(x, y[0]), torch.dist(x, y[0]), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_matrix_power_matches_eager_bit_for_bit(dtype):
    a = torch.randn(2, 4, 4, generator=gen(13)).to(dtype) if dtype.is_floating_point else ints(2, 4, 4, lo=-2, hi=3)
    f = helper("matrix_power")
    for n in range(0, 13):
        same(f(a, n), torch.linalg.matrix_power(a, n))
        same(f(a[0], n), torch.matrix_power(a[0], n))
    same(f(a[:0], 5), torch.linalg.matrix_power(a[:0], 5))  # empty batch
    w = torch.randn(3, 3, generator=gen(14)) + 3 * torch.eye(3)
    same(f(w, -2), torch.linalg.matrix_power(w, -2))  # negative: the original op


@pytest.mark.parametrize("shapes", [
    [(3, 4), (4, 5)], [(10, 100), (100, 5), (5, 50)], [(50, 5), (5, 100), (100, 10)],
    [(30, 35), (35, 15), (15, 5), (5, 10), (10, 20), (20, 25)], [(4,), (4, 6), (6, 5), (5,)],
    [(4,), (4, 6), (6,)], [(2, 3), (3, 3), (3, 3), (3, 2)],
])
def test_multi_dot_matches_eager_bit_for_bit(shapes):
    mats = [torch.randn(*shape, generator=gen(15 + i)) for i, shape in enumerate(shapes)]
    same(helper("multi_dot")(mats), torch.linalg.multi_dot(mats))
    same(helper("multi_dot")(tuple(m.double() for m in mats)), torch.linalg.multi_dot([m.double() for m in mats]))


QUANTILE_DATA = [
    pytest.param(lambda: torch.randn(3, 7, 5, generator=gen(20)), id="random"),
    pytest.param(lambda: ties(4, 6).unsqueeze(0), id="ties"),
    pytest.param(lambda: with_specials(3, 8).unsqueeze(0), id="nan-inf"),
    pytest.param(lambda: torch.randn(2, 4, 3, generator=gen(21)).double(), id="float64"),
    pytest.param(lambda: torch.randn(2, 1, 3, generator=gen(22)), id="size-1"),
]


@pytest.mark.parametrize("make", QUANTILE_DATA)
@pytest.mark.parametrize("key", ["quantile", "nanquantile"])
def test_quantile_matches_eager_bit_for_bit(key, make):
    x = make()
    x[0, 0, -1] = NAN  # one slice with a NaN (quantile: NaN; nanquantile: skips it)
    f, torch_f = helper(key), getattr(torch, key)
    for q in (0.3, 0.0, 1.0, torch.tensor(0.75), torch.tensor([0.1, 0.5, 0.9]), torch.tensor([0.25])):
        q = q.to(x.dtype) if isinstance(q, torch.Tensor) else q
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                for interpolation in ("linear", "lower", "higher", "nearest", "midpoint"):
                    same(f(x, q, dim, keepdim, interpolation=interpolation),
                         torch_f(x, q, dim, keepdim, interpolation=interpolation))
    all_nan = torch.full((2, 4), NAN)
    same(f(all_nan, 0.5, 1), torch_f(all_nan, 0.5, 1))


def ties(*shape):
    return torch.randint(-2, 3, shape, generator=gen(23)).float()


def with_specials(*shape):
    x = ties(*shape)
    x.view(-1)[3::7] = INF
    x.view(-1)[5::11] = -INF
    x.view(-1)[2::9] = NAN
    return x


def test_trapezoid_and_cumulative_match_eager():
    y = torch.randn(3, 7, generator=gen(8))
    xs = torch.randn(7, generator=gen(9)).cumsum(0)
    for key, torch_f in (("trapezoid", torch.trapezoid), ("cumulative_trapezoid", torch.cumulative_trapezoid)):
        f = helper(key)
        same(f(y), torch_f(y), rtol=1e-6, atol=1e-6)
        same(f(y, dim=0), torch_f(y, dim=0), rtol=1e-6, atol=1e-6)
        same(f(y, dx=0.25), torch_f(y, dx=0.25), rtol=1e-6, atol=1e-6)
        same(f(y, xs), torch_f(y, xs), rtol=1e-6, atol=1e-6)
        same(f(y, xs.expand(3, 7)), torch_f(y, xs.expand(3, 7)), rtol=1e-6, atol=1e-6)
        same(f(y[:, :1]), torch_f(y[:, :1]))


@pytest.mark.parametrize("p", [2, 1, 3, INF])
def test_renorm_matches_eager(p):
    x = torch.randn(4, 3, 5, generator=gen(10)) * 2
    for dim in (0, 1, -1):
        same(helper("renorm")(x, p, dim, 1.5), torch.renorm(x, p, dim, 1.5), rtol=1e-6, atol=1e-6)
    same(helper("renorm")(x.double(), p, 0, 100.0), torch.renorm(x.double(), p, 0, 100.0))  # none scaled


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_rms_norm_matches_eager(dtype):
    x = torch.randn(2, 3, 8, generator=gen(11)).to(dtype)
    w = torch.randn(8, generator=gen(12)).to(dtype)
    f = helper("rms_norm")
    tol = {}  # bit-identical by construction: ATen's rms_norm is composite on CPU (pow, mean, add, rsqrt, mul, mul), as the helper
    same(f(x, (8,)), F.rms_norm(x, (8,)), **tol)
    same(f(x, [8], w), F.rms_norm(x, [8], w), **tol)
    same(f(x, (3, 8), eps=1e-3), F.rms_norm(x, (3, 8), eps=1e-3), **tol)
    same(f(torch.zeros(2, 4, dtype=dtype), (4,)), F.rms_norm(torch.zeros(2, 4, dtype=dtype), (4,)))
