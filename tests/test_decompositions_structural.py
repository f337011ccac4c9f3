"""(a) Eager equivalence of the structural decompositions (onnxfix/decompositions/registry_structural.py):
scatter_reduce mean and cross_entropy label_smoothing (which the dynamo exporter exports silently
wrong), cov, corrcoef, index_reduce, vander, combinations, pdist and narrow with a tensor start.
Compared bit for bit (torch.equal) where that holds by construction on every CPU kernel path
(selection, integers, or ATen's arithmetic in ATen's order); within the rounding of the
computation where the helper's export branch sums, multiplies or takes exp/log in another
kernel's order (scatter_reduce and index_reduce mean/prod on floats, ctc_loss)."""

from __future__ import annotations

import itertools
import warnings

import pytest
import torch

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


def assert_same(got, want, *, exact=True, rtol=1e-6, atol=1e-7):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if exact or not (want.dtype.is_floating_point or want.dtype.is_complex):
        assert torch.equal(got, want) or torch.equal(got.isnan(), want.isnan()) and torch.equal(
            got.nan_to_num(0.0), want.nan_to_num(0.0)
        ), (got - want if want.dtype.is_floating_point else (got, want))
    else:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True)


def reordered(dtype, terms, *operands):
    """assert_same's tolerance for a float result the helper computes with `terms` additions or
    multiplications (and a division) in another order than ATen's kernel: each rounding is at
    most eps / 2 of its partial result, so the two differ by at most ~terms * eps of the
    result (products) or of the largest finite operand's magnitude (sums). Integers: exact."""
    if not dtype.is_floating_point:
        return {}
    eps = torch.finfo(dtype).eps
    finite = torch.cat([o.detach().double().flatten() for o in operands])
    finite = finite[finite.isfinite()]
    scale = finite.abs().max().item() if finite.numel() else 0.0
    return dict(exact=False, rtol=terms * eps, atol=terms * eps * scale)


def values(shape, dtype, seed):
    if dtype.is_floating_point:
        return torch.randn(*shape, generator=gen(seed)).to(dtype)
    low = 0 if dtype == torch.uint8 else -50
    return torch.randint(low, 50, shape, generator=gen(seed)).to(dtype)


# ---- scatter_reduce(reduce="mean") ------------------------------------------------------------
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int8, torch.uint8]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_mean_matches_eager(dtype, include_self, dim):
    """Integers bit for bit (exact sums, floor division); floats to the rounding of a sum in
    scatter_add's order (the helper) against scatter_reduce's mean kernel (ATen)."""
    f = helper("scatter_reduce")
    for seed in range(5):
        x, src = values((4, 6), dtype, seed), values((4, 9), dtype, seed + 100)  # src larger than index
        index = torch.randint(0, 4 if dim == 0 else 6, (3, 5), generator=gen(seed + 200))
        tol = reordered(dtype, index.shape[dim] + 2, x, src)  # self, the sources, the division
        want = torch.scatter_reduce(x, dim, index, src, "mean", include_self=include_self)
        assert_same(f(x, dim, index, src, "mean", include_self=include_self), want, **tol)
        assert_same(f(x, dim, index, src, reduce="mean", include_self=include_self), x.scatter_reduce(dim, index, src, reduce="mean", include_self=include_self), **tol)


def test_scatter_reduce_mean_integer_floor_division_of_negatives():
    x = torch.tensor([0, 0, 7])
    index = torch.tensor([0, 0, 1, 1, 1])
    src = torch.tensor([-3, 0, -1, -1, 0])  # means -3/3 with self, -2/4: floor rounds towards -inf
    for include_self in (True, False):
        want = torch.scatter_reduce(x, 0, index, src, "mean", include_self=include_self)
        assert_same(helper("scatter_reduce")(x, 0, index, src, "mean", include_self=include_self), want)
    assert helper("scatter_reduce")(x, 0, index, src, "mean", include_self=False).tolist() == [-2, -1, 7]


def test_scatter_reduce_mean_nan_inf_batched_empty():
    f = helper("scatter_reduce")
    x = torch.randn(2, 3, 5, generator=gen())
    src = torch.randn(2, 3, 4, generator=gen(1))
    src[0, 0, 0], src[1, 2, 1], src[0, 1, 2] = NAN, INF, -INF
    index = torch.randint(0, 5, (2, 3, 4), generator=gen(2))
    for include_self in (True, False):  # NaN and inf where torch has them, exactly (assert_close)
        assert_same(f(x, 2, index, src, "mean", include_self=include_self), torch.scatter_reduce(x, 2, index, src, "mean", include_self=include_self),
                    **reordered(x.dtype, 4 + 2, x, src))
    empty_index = torch.zeros(2, 3, 0, dtype=torch.int64)  # nothing scattered: x / 1, exact
    assert_same(f(x, 2, empty_index, src, "mean"), torch.scatter_reduce(x, 2, empty_index, src, "mean"))
    one = torch.randn(1, 1, generator=gen(3))
    assert_same(f(one, 0, torch.zeros(1, 1, dtype=torch.int64), one * 3, "mean"), torch.scatter_reduce(one, 0, torch.zeros(1, 1, dtype=torch.int64), one * 3, "mean"),
                **reordered(one.dtype, 3, one, one * 3))


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_scatter_reduce_in_place_writes_into_input_and_returns_it(dtype):
    x, src = values((3, 5), dtype, 0), values((3, 4), dtype, 1)
    index = torch.randint(0, 5, (3, 4), generator=gen(2))
    for include_self in (True, False):
        want, got = x.clone(), x.clone()
        returned = helper("scatter_reduce_")(got, 1, index, src, "mean", include_self=include_self)
        want.scatter_reduce_(1, index, src, "mean", include_self=include_self)
        assert returned is got
        assert_same(got, want, **reordered(dtype, 4 + 2, x, src))


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
def test_scatter_reduce_other_reductions_unchanged(reduce):
    x, src = torch.randn(3, 5, generator=gen()), torch.randn(3, 4, generator=gen(1))
    index = torch.randint(0, 5, (3, 4), generator=gen(2))
    for include_self in (True, False):
        assert_same(helper("scatter_reduce")(x, 1, index, src, reduce, include_self=include_self), torch.scatter_reduce(x, 1, index, src, reduce, include_self=include_self))


# ---- cross_entropy(label_smoothing=) -----------------------------------------------------------
def _ce_cases():
    for shape in [(5,), (4, 5), (2, 5, 3), (2, 5, 3, 4), (0, 5), (1, 1)]:
        for dtype in (torch.float32, torch.float64):
            yield shape, dtype


@pytest.mark.parametrize("shape,dtype", list(_ce_cases()))
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1, 0.5, 1.0])
def test_cross_entropy_label_smoothing_matches_eager(shape, dtype, label_smoothing):
    f = helper("cross_entropy")
    x = torch.randn(*shape, generator=gen(), dtype=dtype)
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    target = torch.randint(0, classes, target_shape, generator=gen(1))
    ignored = target.clone()
    ignored.view(-1)[::2] = -100  # ignore_index's default
    probabilities = torch.softmax(torch.randn(*shape, generator=gen(2), dtype=dtype), 0 if len(shape) == 1 else 1)
    weight = torch.rand(classes, generator=gen(3), dtype=dtype)
    for (y, ignore_index), w, reduction in itertools.product(
        [(target, -100), (ignored, -100), (target, 1 % classes), (probabilities, -100)], [None, weight], ["mean", "sum", "none"]
    ):
        want = torch.nn.functional.cross_entropy(x, y, w, ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
        got = f(x, y, w, ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing)
        # weighted mean: torch drops ignored weights with masked_select, the helper zeroes them
        # (a different summation order): agreement to 1 ulp; everything else bit-identical by
        # construction (the helper runs ATen's composite cross_entropy op for op: log_softmax,
        # nll_loss, the smoothing sums, in ATen's order).
        loose = w is not None and reduction == "mean" and not y.is_floating_point()
        assert_same(got, want, exact=not loose, rtol=2e-7 if dtype == torch.float64 else 1e-6, atol=0)


def test_cross_entropy_module_and_deprecated_arguments():
    f = helper("cross_entropy")
    x, y = torch.randn(6, 4, generator=gen()), torch.randint(0, 4, (6,), generator=gen(1))
    module = torch.nn.CrossEntropyLoss(label_smoothing=0.2, reduction="sum")
    assert_same(f(x, y, label_smoothing=0.2, reduction="sum"), module(x, y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # size_average/reduce are deprecated
        for size_average, reduce in [(False, None), (None, False), (True, True), (False, True)]:
            want = torch.nn.functional.cross_entropy(x, y, None, size_average, -100, reduce, label_smoothing=0.3)
            assert_same(f(x, y, None, size_average, -100, reduce, label_smoothing=0.3), want)


def test_cross_entropy_all_targets_ignored_is_nan_like_torch():
    x, y = torch.randn(3, 4, generator=gen()), torch.full((3,), -100)
    want = torch.nn.functional.cross_entropy(x, y, label_smoothing=0.1)
    assert want.isnan() and helper("cross_entropy")(x, y, label_smoothing=0.1).isnan()


# ---- cov, corrcoef -----------------------------------------------------------------------------
def _cov_inputs():
    yield torch.randn(3, 7, generator=gen())
    yield torch.randn(7, generator=gen(1))  # one variable: a 0-dim result
    yield torch.randn(1, 5, generator=gen(2), dtype=torch.float64)
    yield torch.randint(-5, 6, (4, 6), generator=gen(3))  # integers give floats
    yield torch.tensor([[1.0, NAN, 2.0, 3.0], [INF, 1.0, 0.0, 2.0], [1.0, 2.0, 3.0, 4.0]])
    yield torch.ones(2, 4)  # zero variance
    yield torch.randn(3, 1, generator=gen(4))  # one observation: 0 degrees of freedom


@pytest.mark.parametrize("x", list(_cov_inputs()))
@pytest.mark.parametrize("correction", [0, 1, 2])
def test_cov_bit_identical(x, correction):
    f = helper("cov")
    n = x.shape[-1]
    fweights = torch.randint(0, 4, (n,), generator=gen(5))
    aweights = torch.rand(n, generator=gen(6), dtype=torch.float64 if x.dtype == torch.float64 else torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degrees of freedom <= 0
        for fw, aw in [(None, None), (fweights, None), (None, aweights), (fweights, aweights)]:
            if fw is not None and int(fw.sum()) == 0:
                continue
            want = torch.cov(x, correction=correction, fweights=fw, aweights=aw)
            assert_same(f(x, correction=correction, fweights=fw, aweights=aw), want)
        assert_same(f(x, correction=correction), x.cov(correction=correction))


@pytest.mark.parametrize("x", list(_cov_inputs()))
def test_corrcoef_bit_identical_and_clipped(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(helper("corrcoef")(x), torch.corrcoef(x))
        assert_same(helper("corrcoef")(x), x.corrcoef())
    collinear = torch.stack([torch.arange(5.0), torch.arange(5.0) * 3 + 1, -torch.arange(5.0)])
    got = helper("corrcoef")(collinear)
    assert_same(got, torch.corrcoef(collinear))
    assert got.abs().max() <= 1


# ---- index_reduce ------------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8])
def test_index_reduce_matches_eager(reduce, include_self, dtype):
    """amax/amin and integers bit for bit (selection, exact arithmetic); float mean and prod to
    the rounding of scatter_reduce's accumulation order (the helper) against index_reduce's."""
    f = helper("index_reduce")
    for dim, seed in itertools.product([0, 1, -1], range(3)):
        x = values((4, 5, 3), dtype, seed) if dtype.is_floating_point else values((4, 5, 3), dtype, seed) % 7
        size = x.shape[dim]
        index = torch.randint(0, size, (6,), generator=gen(seed + 10))
        shape = list(x.shape)
        shape[dim] = 6
        source = values(tuple(shape), dtype, seed + 20) if dtype.is_floating_point else values(tuple(shape), dtype, seed + 20) % 5
        want = x.index_reduce(dim, index, source, reduce, include_self=include_self)
        tol = reordered(dtype, 6 + 2, x, source) if reduce in ("mean", "prod") else {}
        assert_same(f(x, dim, index, source, reduce, include_self=include_self), want, **tol)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_in_place_writes_into_input_and_returns_it(reduce):
    x, source = torch.randn(4, 3, generator=gen()), torch.randn(5, 3, generator=gen(1))
    index = torch.tensor([0, 2, 2, 3, 0])
    for include_self in (True, False):
        want, got = x.clone(), x.clone()
        returned = helper("index_reduce_")(got, 0, index, source, reduce, include_self=include_self)
        want.index_reduce_(0, index, source, reduce, include_self=include_self)
        assert returned is got
        assert_same(got, want, **(reordered(x.dtype, 5 + 2, x, source) if reduce in ("mean", "prod") else {}))


def test_index_reduce_nan_inf_and_1d():
    x = torch.tensor([1.0, NAN, 3.0, -INF, 5.0])
    source = torch.tensor([INF, 2.0, NAN, -1.0, 0.5, -INF])
    index = torch.tensor([0, 0, 2, 3, 3, 4])
    for reduce, include_self in itertools.product(["prod", "mean", "amax", "amin"], [True, False]):
        tol = reordered(x.dtype, 2 + 2, x, source) if reduce in ("mean", "prod") else {}  # NaN, inf: exact
        assert_same(helper("index_reduce")(x, 0, index, source, reduce, include_self=include_self), x.index_reduce(0, index, source, reduce, include_self=include_self), **tol)
    empty = torch.zeros(0, dtype=torch.int64)
    assert_same(helper("index_reduce")(x, 0, empty, source[:0], "amax"), x.index_reduce(0, empty, source[:0], "amax"))


# ---- vander ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.int8, torch.bool, torch.float16])
@pytest.mark.parametrize("N", [None, 0, 1, 2, 5, 9])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_bit_identical(dtype, N, increasing):
    # Exact by construction: ATen's vander is a cumprod, which on CPU accumulates in double
    # (float in half precision) and rounds each power once to the dtype, as the helper does.
    x = torch.tensor([0.5, -1.25, 3.0, 0.0, 1.1, -0.7, 2.9]) if dtype.is_floating_point else torch.tensor([2, -3, 0, 1, 5, -1, 4])
    x = x.to(dtype)
    assert_same(helper("vander")(x, N, increasing), torch.vander(x, N, increasing))
    assert_same(helper("vander")(x, N=N, increasing=increasing), torch.vander(x, N=N, increasing=increasing))
    special = torch.tensor([NAN, INF, -INF, 1e20])
    assert_same(helper("vander")(special, 4), torch.vander(special, 4))
    assert_same(helper("vander")(torch.randn(0), N), torch.vander(torch.randn(0), N))


# ---- combinations, pdist -----------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("r", [0, 1, 2, 3])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_bit_identical(n, r, with_replacement):
    x = torch.randn(n, generator=gen())
    assert_same(helper("combinations")(x, r, with_replacement), torch.combinations(x, r, with_replacement))
    ints = torch.arange(n) * 3 - 2
    assert_same(helper("combinations")(ints, r=r, with_replacement=with_replacement), torch.combinations(ints, r=r, with_replacement=with_replacement))
    assert_same(helper("combinations")(ints), torch.combinations(ints))


@pytest.mark.parametrize("p", [0, 1, 1.5, 2, 3, INF])
@pytest.mark.parametrize("shape", [(6, 4), (2, 3), (1, 5), (0, 3), (5, 1), (4, 0)])
def test_pdist_matches_eager(p, shape):
    x = torch.randn(*shape, generator=gen())
    if x.numel():
        x[0, 0] = x[-1, 0]  # a zero difference (p = 0 counts non-zero ones)
    want = torch.nn.functional.pdist(x, p)
    assert_same(helper("pdist")(x, p), want, exact=False, rtol=2e-6, atol=1e-6)
    assert_same(helper("pdist")(x.double(), p=p), torch.pdist(x.double(), p=p), exact=False, rtol=1e-12, atol=1e-12)


# ---- narrow with a tensor start ----------------------------------------------------------------
@pytest.mark.parametrize("start", [0, 2, -3, 4])
def test_narrow_tensor_start_bit_identical(start):
    x = torch.randn(3, 7, 2, generator=gen())
    for dim, length in [(1, 3), (1, 0), (-2, 1), (0, 2)]:
        s = start % x.shape[dim] if start + length > x.shape[dim] or start < -x.shape[dim] else start
        s = min(s, x.shape[dim] - length) if s >= 0 else s
        want = torch.narrow(x, dim, torch.tensor(s), length)
        assert_same(helper("narrow")(x, dim, torch.tensor(s), length), want)
        assert_same(helper("narrow")(x, dim, s, length), x.narrow(dim, s, length))
    ints = torch.arange(10)
    assert_same(helper("narrow")(ints, 0, torch.tensor(3), 4), torch.narrow(ints, 0, torch.tensor(3), 4))


# ---- ctc_loss ----------------------------------------------------------------------------------
@pytest.mark.parametrize("steps,batch,classes,width", [(12, 3, 5, 4), (6, 2, 4, 3), (1, 2, 3, 1), (8, 1, 3, 4), (20, 4, 6, 6)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_ctc_loss_matches_eager(steps, batch, classes, width, dtype):
    """Within the rounding of the alpha recursion: the helper's log-sum-exp runs as vectorized
    tensor exp/log, ATen's kernel as scalar libm calls, each within an ulp or so; in log space
    every step's error adds (unamplified) to the previous ones, so after `steps` steps the
    loss differs by at most a few ulps per step of its magnitude. inf (impossible alignments)
    and 0 (zero_infinity) exactly."""
    f = helper("ctc_loss")
    tol = dict(exact=False, rtol=4 * steps * torch.finfo(dtype).eps, atol=4 * steps * torch.finfo(dtype).eps)
    log_probs = torch.randn(steps, batch, classes, generator=gen(), dtype=dtype).log_softmax(2)
    targets = torch.randint(1, classes, (batch, width), generator=gen(1))
    if width > 1:
        targets[0, 1] = targets[0, 0]  # a repeated label needs a blank between (no skip)
    input_lengths = torch.randint(max(1, steps // 2), steps + 1, (batch,), generator=gen(2))
    input_lengths[0] = steps
    target_lengths = torch.randint(0, width + 1, (batch,), generator=gen(3))  # 0: an empty target
    target_lengths[-1] = width
    concatenated = torch.cat([targets[i, : target_lengths[i]] for i in range(batch)])
    for reduction, zero_infinity in itertools.product(["none", "sum", "mean"], [False, True]):
        kwargs = {"reduction": reduction, "zero_infinity": zero_infinity}
        want = torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, **kwargs)
        assert_same(f(log_probs, targets, input_lengths, target_lengths, **kwargs), want, **tol)
        want = torch.nn.functional.ctc_loss(log_probs, concatenated, input_lengths.tolist(), target_lengths.tolist(), **kwargs)
        assert_same(f(log_probs, concatenated, input_lengths.tolist(), target_lengths.tolist(), **kwargs), want, **tol)
        positional = torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, 0, reduction, zero_infinity)
        assert_same(f(log_probs, targets, input_lengths, target_lengths, 0, reduction, zero_infinity), positional, **tol)


def test_ctc_loss_impossible_empty_and_unbatched():
    f = helper("ctc_loss")
    tol = dict(exact=False, rtol=4 * 3 * torch.finfo(torch.float32).eps, atol=4 * 3 * torch.finfo(torch.float32).eps)  # 3 steps
    log_probs = torch.randn(3, 2, 4, generator=gen()).log_softmax(2)
    targets = torch.tensor([[1, 1, 1], [2, 3, 0]])
    for lengths in ([3, 2], [0, 0]):  # 1,1,1 needs 5 steps: inf (0 with zero_infinity); no input
        for target_lengths in ([3, 2], [0, 2]):
            for zero_infinity in (False, True):
                want = torch.nn.functional.ctc_loss(log_probs, targets, lengths, target_lengths, reduction="none", zero_infinity=zero_infinity)
                assert_same(f(log_probs, targets, lengths, target_lengths, reduction="none", zero_infinity=zero_infinity), want, **tol)
    other_blank = targets.clamp(max=2)  # blank=3: labels 0..2
    want = torch.nn.functional.ctc_loss(log_probs, other_blank, [3, 3], [3, 2], blank=3, reduction="none")
    assert_same(f(log_probs, other_blank, [3, 3], [3, 2], blank=3, reduction="none"), want, **tol)
    single, target = log_probs[:, 0], targets[0, :2]
    for reduction in ("none", "mean"):
        want = torch.nn.functional.ctc_loss(single, target, torch.tensor(3), torch.tensor(2), reduction=reduction)
        assert_same(f(single, target, torch.tensor(3), torch.tensor(2), reduction=reduction), want, **tol)


# ---- masked_select, unique_consecutive, fft.rfftfreq ------------------------------------------------
@pytest.mark.parametrize("input_shape, mask_shape", [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((), ()), ((2, 0), (2, 0))])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool])
def test_masked_select_bit_identical_with_broadcasting(input_shape, mask_shape, dtype):
    x = torch.randn(input_shape, generator=gen(1)).to(dtype)
    for mask in (torch.randn(mask_shape, generator=gen(2)) > 0, torch.ones(mask_shape, dtype=torch.bool), torch.zeros(mask_shape, dtype=torch.bool)):
        assert_same(helper("masked_select")(x, mask), torch.masked_select(x, mask))


UNIQUE_INPUTS = [
    torch.tensor([1.0, NAN, NAN, 2.0, 2.0, NAN, -0.0, 0.0]),  # each NaN its own group; -0.0 == 0.0
    torch.randint(0, 3, (4, 5, 6), generator=gen(3)).float(),
    torch.randint(0, 2, (7,), generator=gen(4)),
    torch.tensor([True, True, False, False, True]),
    torch.tensor([]),
    torch.tensor(3.0),
    torch.zeros(2, 0),
]


@pytest.mark.parametrize("x", UNIQUE_INPUTS, ids=lambda x: f"{x.dtype}{list(x.shape)}")
def test_unique_consecutive_bit_identical_every_dim_and_flag(x):
    for dim in [None, *range(-x.dim(), x.dim())]:
        for inverse, counts in itertools.product((False, True), repeat=2):
            try:
                want = torch.unique_consecutive(x, return_inverse=inverse, return_counts=counts, dim=dim)
            except RuntimeError:  # torch rejects a 0-sized dimension other than `dim`
                continue
            got = helper("unique_consecutive")(x, return_inverse=inverse, return_counts=counts, dim=dim)
            if not isinstance(want, tuple):
                got, want = (got,), (want,)
            assert len(got) == len(want)
            for g, w in zip(got, want):
                assert_same(g, w)


@pytest.mark.parametrize("n", range(1, 40))
@pytest.mark.parametrize("d", [1.0, 0.5, 0.1, 1 / 3, 7.3, 1e-3])
def test_rfftfreq_bit_identical(n, d):
    assert_same(helper("rfftfreq")(n, d), torch.fft.rfftfreq(n, d))
    assert_same(helper("rfftfreq")(n, d, dtype=torch.float64), torch.fft.rfftfreq(n, d, dtype=torch.float64))
    assert helper("rfftfreq")(n, requires_grad=True).requires_grad


# ---- conv_groups: groups read from sizes ----------------------------------------------------------
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_conv_groups_sum_over_offsets_matches_the_grouped_convolution(rank, seed):
    """The export branch (groups a traced size: a 0-d tensor, as while the legacy exporter
    traces) against torch's grouped convolution, over strides, dilations, paddings, biases and
    groups with several channels each; a sum in another order than the kernel's: rounding."""
    g = gen(seed)
    draw = lambda low, high: int(torch.randint(low, high, (), generator=g))  # noqa: E731
    groups = draw(1, 4)
    channels, outputs = groups * draw(1, 3), groups * draw(1, 3)
    kernel, stride, dilation, padding = ([draw(low, high) for _ in range(rank)] for low, high in ((1, 4), (1, 3), (1, 3), (0, 3)))
    x = torch.randn(2, channels, *[draw(7, 12) for _ in range(rank)], generator=g)
    weight = torch.randn(outputs, channels // groups, *kernel, generator=g)
    bias = torch.randn(outputs, generator=g) if seed % 2 else None
    convolution = (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[rank - 1]
    want = convolution(x, weight, bias, stride, padding, dilation, groups)
    got = helper("conv_groups")(x, weight, bias, stride, padding, dilation, torch.tensor(groups))
    terms = channels // groups * int(torch.tensor(kernel).prod()) + 1
    assert_same(got, want, **reordered(torch.float32, terms, x * weight.abs().max(), want))


def test_conv_groups_of_a_number_is_the_convolution():
    """A plain group count (a layer's, or any call in eager) runs torch's convolution itself."""
    x, weight = torch.randn(2, 4, 9, 9, generator=gen()), torch.randn(6, 2, 3, 3, generator=gen(1))
    assert torch.equal(helper("conv_groups")(x, weight, None, 2, 1, 1, 2),
                       torch.nn.functional.conv2d(x, weight, None, 2, 1, 1, 2))


def test_conv_groups_unbatched_input_and_one_element_sequences():
    """torch's convolutions take an input without its batch axis, and a stride / padding /
    dilation of one entry for every axis (the review's cases: an IndexError before)."""
    x, weight = torch.randn(4, 10, 11, generator=gen()), torch.randn(4, 1, 3, 3, generator=gen(1))
    want = torch.nn.functional.conv2d(x, weight, None, (2,), [1], (1,), 4)
    got = helper("conv_groups")(x, weight, None, (2,), [1], (1,), torch.tensor(4))
    assert_same(got, want, **reordered(torch.float32, 10, x * weight.abs().max(), want))
