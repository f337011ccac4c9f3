"""(a) The linear-algebra factorisation helpers (registry_linalg.py, rule ONX512) against torch in
eager: random, batched, tall/wide, float32/float64, size-0 and size-1 matrices, singular and
non-positive-definite inputs where torch defines a result, and the measured error bounds the
registry documents. (b) is each record's `proof`."""

from __future__ import annotations

import mpmath
import pytest
import torch

from onnxfix.decompositions import BY_KEY, eager_guarded, load_function

NAN, INF = float("nan"), float("inf")
DTYPES = [torch.float32, torch.float64]
SIZES = [1, 2, 3, 5, 8]
# the documented bounds (registry_linalg.py error_bound), per dtype
TIGHT = {torch.float32: 5e-7, torch.float64: 1e-15}


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


def spd(batch, n, dtype, seed=0):
    """Symmetric positive definite, eigenvalues in [1, 10]."""
    q, _ = torch.linalg.qr(torch.randn(*batch, n, n, generator=gen(seed), dtype=torch.float64))
    return (q * torch.linspace(1.0, 10.0, n, dtype=torch.float64) @ q.mT).to(dtype)


def max_error(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    return (got - want).abs().max().item() if got.numel() else 0.0


def relative_error(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
    if not got.numel():
        return 0.0
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


# ---- cholesky ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_cholesky_matches_torch(n, dtype):
    a = spd((3, 2), n, dtype, seed=n)
    cholesky = helper("linalg_cholesky")
    for upper in (False, True):
        want = torch.linalg.cholesky(a, upper=upper)
        assert max_error(cholesky(a, upper=upper), want) < TIGHT[dtype]
        assert max_error(cholesky(a, upper), torch.cholesky(a, upper)) < TIGHT[dtype]  # deprecated spelling
    assert max_error(cholesky(a[0, 0]), torch.linalg.cholesky(a[0, 0])) < TIGHT[dtype]  # no batch


def test_cholesky_reads_one_triangle_like_torch():
    a = spd((), 4, torch.float64)
    junk_upper, junk_lower = a.clone(), a.clone()
    junk_upper[0, 3] = 100.0
    junk_lower[3, 0] = -100.0
    cholesky = helper("linalg_cholesky")
    torch.testing.assert_close(cholesky(junk_upper), torch.linalg.cholesky(junk_upper))
    torch.testing.assert_close(cholesky(junk_lower, upper=True), torch.linalg.cholesky(junk_lower, upper=True))
    assert not torch.allclose(cholesky(junk_upper, upper=True), cholesky(a, upper=True))  # the test can fail


def test_cholesky_edge_cases():
    cholesky = helper("linalg_cholesky")
    for shape in [(0, 0), (2, 0, 0)]:
        empty = torch.zeros(shape)
        assert cholesky(empty).shape == torch.linalg.cholesky(empty).shape
    one = torch.tensor([[4.0]])  # sqrt(4) = 2: exact on any path
    assert torch.equal(cholesky(one), torch.linalg.cholesky(one))
    # not positive definite: torch raises, the helper gives NaN (why the fix is unsafe)
    bad = torch.tensor([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(RuntimeError):
        torch.linalg.cholesky(bad)
    assert cholesky(bad).isnan().any()


# ---- solve_triangular -----------------------------------------------------------------------------
def triangular_system(n, dtype, seed):
    g = gen(seed)
    a = torch.randn(2, n, n, generator=g, dtype=torch.float64)
    a = a + torch.diag_embed(a.diagonal(dim1=-2, dim2=-1).sign() * 2 + a.diagonal(dim1=-2, dim2=-1))  # |diag| >= 2
    return a.to(dtype), torch.randn(2, n, 3, generator=g, dtype=torch.float64).to(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_solve_triangular_matches_torch(n, dtype):
    a, b = triangular_system(n, dtype, n)
    solve = helper("linalg_solve_triangular")
    bound = {torch.float32: 1e-5, torch.float64: 1e-13}[dtype]
    for upper in (False, True):
        for unitriangular in (False, True):
            a_unit = a * 0.3 if unitriangular else a  # keep unit-triangular systems well conditioned
            want = torch.linalg.solve_triangular(a_unit, b, upper=upper, unitriangular=unitriangular)
            assert relative_error(solve(a_unit, b, upper=upper, unitriangular=unitriangular), want) < bound
            right = torch.linalg.solve_triangular(a_unit, b.mT, upper=upper, left=False, unitriangular=unitriangular)
            assert relative_error(solve(a_unit, b.mT, upper=upper, left=False, unitriangular=unitriangular), right) < bound


def test_solve_triangular_broadcast_dtype_and_other_triangle():
    a, b = triangular_system(4, torch.float64, 7)
    solve = helper("linalg_solve_triangular")
    # A batched, B not (and the reverse); only the named triangle of A is read
    for args in [(a, b[0]), (a[0], b)]:
        torch.testing.assert_close(solve(*args, upper=True), torch.linalg.solve_triangular(*args, upper=True))
    torch.testing.assert_close(solve(a.triu(), b, upper=True), solve(a, b, upper=True))
    torch.testing.assert_close(solve(a.tril(), b, upper=False), solve(a, b, upper=False))
    assert not torch.allclose(solve(a, b, upper=True), solve(a, b, upper=False))
    # empty right-hand side and a 1x1 system
    empty = torch.zeros(2, 4, 0, dtype=torch.float64)
    assert solve(a, empty, upper=True).shape == torch.linalg.solve_triangular(a, empty, upper=True).shape
    one, rhs = torch.tensor([[2.0]]), torch.tensor([[3.0, -1.0]])  # 1.5, -0.5: exact, as b / a or b * (1 / a)
    assert torch.equal(solve(one, rhs, upper=False), torch.linalg.solve_triangular(one, rhs, upper=False))


def test_solve_triangular_zero_diagonal_gives_inf_like_torch():
    a = torch.tensor([[0.0, 1.0], [0.0, 1.0]])
    b = torch.tensor([[1.0], [1.0]])
    got, want = helper("linalg_solve_triangular")(a, b, upper=True), torch.linalg.solve_triangular(a, b, upper=True)
    assert (~got.isfinite()).any() and (~want.isfinite()).any()


# ---- slogdet -------------------------------------------------------------------------------------
def true_slogdet(a):
    """(sign, log|det|) in float64, the same on every CPU: float64 LAPACK for float32 matrices
    (its error is 2^-29 of float32's), mpmath at 128 bits for float64 ones."""
    if a.dtype != torch.float64:
        return torch.linalg.slogdet(a.double())
    with mpmath.workprec(128):
        dets = [mpmath.det(mpmath.matrix(m.tolist())) for m in a.reshape(-1, *a.shape[-2:])]
    sign = torch.tensor([float(mpmath.sign(d)) for d in dets], dtype=torch.float64)
    log = torch.tensor([float(mpmath.log(abs(d))) for d in dets], dtype=torch.float64)
    return sign.reshape(a.shape[:-2]), log.reshape(a.shape[:-2])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_slogdet_within_condition_bound(n, dtype):
    a = torch.randn(50, n, n, generator=gen(n), dtype=dtype)
    got = helper("linalg_slogdet")(a)
    assert got.sign.dtype == got.logabsdet.dtype == dtype
    sign, log = true_slogdet(a)
    assert torch.equal(got.sign.double(), sign)  # the sign includes the permutation parity
    # the error in logabsdet is the relative error of det: partial pivoting bounds it by a small
    # multiple of n * cond(a) * eps (these random Gaussian matrices reach cond ~ 1e3)
    scale = n * torch.linalg.cond(a.double()) * torch.finfo(dtype).eps
    assert ((got.logabsdet.double() - log).abs() / scale).max() <= 1.0
    assert max_error(got[1], got.logabsdet) == 0  # a named tuple, indexable like torch's


def test_slogdet_needs_pivoting_and_handles_singular():
    slogdet = helper("linalg_slogdet")
    for a in [
        torch.tensor([[0.0, 1.0], [1.0, 0.0]]),  # a swap: sign -1
        torch.tensor([[0.0, 0.0, 2.0], [0.0, 3.0, 0.0], [5.0, 0.0, 0.0]]),
        torch.zeros(3, 3),  # singular: sign 0, logabsdet -inf
        torch.tensor([[1.0, 2.0], [2.0, 4.0]]),
        torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
        torch.tensor([[2.0, 1.0], [1.0, INF]]),
        torch.tensor([[-3.0]]),
    ]:
        got, want = slogdet(a), torch.linalg.slogdet(a)
        assert torch.equal(got.sign, want.sign), (a, got, want)
        torch.testing.assert_close(got.logabsdet, want.logabsdet)
    nan = slogdet(torch.tensor([[NAN, 1.0], [1.0, 1.0]]))
    assert nan.logabsdet.isnan()
    for shape in [(0, 0), (3, 0, 0)]:
        got, want = slogdet(torch.zeros(shape)), torch.linalg.slogdet(torch.zeros(shape))
        assert torch.equal(got.sign, want.sign) and torch.equal(got.logabsdet, want.logabsdet)


# ---- qr ------------------------------------------------------------------------------------------------
QR_SHAPES = [(4, 4), (6, 3), (3, 6), (1, 1), (5, 1), (1, 5), (2, 4, 4), (3, 5, 2), (50, 6, 6), (50, 6, 4), (50, 4, 6)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", QR_SHAPES)
def test_qr_matches_torch_signs_included(shape, dtype):
    a = torch.randn(*shape, generator=gen(sum(shape)), dtype=dtype)
    qr = helper("linalg_qr")
    bound = {torch.float32: 5e-6, torch.float64: 1e-14}[dtype]  # Q; R gets twice that
    for mode in ("reduced", "complete", "r"):
        got, want = qr(a, mode), torch.linalg.qr(a, mode)
        assert got.Q.shape == want.Q.shape
        assert max_error(got.Q, want.Q) < bound and max_error(got.R, want.R) < bound * 2
    assert max_error(qr(a, mode="reduced")[0], torch.linalg.qr(a)[0]) < bound


def test_qr_special_columns():
    qr = helper("linalg_qr")
    for a in [
        torch.tensor([[1.0, 2.0], [0.0, 3.0]]),  # already triangular: no reflection, R keeps its signs
        torch.tensor([[-1.0, 2.0], [0.0, 3.0]]),
        torch.tensor([[0.0, 1.0], [2.0, 0.0]]),  # alpha = 0
        torch.zeros(3, 3),
        torch.zeros(4, 0),
        torch.zeros(0, 3),
    ]:
        for mode in ("reduced", "complete"):
            got, want = qr(a, mode), torch.linalg.qr(a, mode)
            torch.testing.assert_close(got.Q, want.Q)
            torch.testing.assert_close(got.R, want.R)


def test_qr_rank_deficient_differs_beyond_the_rank():
    """Why the fix is unsafe: past the rank, Q's columns come from rounding noise."""
    a = torch.randn(5, 2, generator=gen(3), dtype=torch.float64)
    a = torch.cat([a, 2 * a[:, :1], a[:, 1:]], 1)  # rank 2
    got, want = helper("linalg_qr")(a), torch.linalg.qr(a)
    torch.testing.assert_close(got.R.abs()[:2], want.R.abs()[:2])  # the first two rows agree
    torch.testing.assert_close(got.Q[:, :2], want.Q[:, :2])
    torch.testing.assert_close(got.Q @ got.R, a)  # still a QR factorisation


# ---- matrix_exp --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
def test_matrix_exp_error_bound(n, dtype):
    matrix_exp = helper("linalg_matrix_exp")
    bound = {torch.float32: 3e-5, torch.float64: 1e-12}[dtype]
    for scale in (1e-3, 0.1, 1.0, 3.0, 10.0, 30.0):  # ||A||_1 from ~1e-3 to ~100
        a = (torch.randn(20, n, n, generator=gen(n), dtype=torch.float64) * scale / n**0.5).to(dtype)
        got, want = matrix_exp(a), torch.linalg.matrix_exp(a)
        finite = want.isfinite().all(-1).all(-1)  # float32 overflows to inf for the largest ones
        assert torch.equal(got.isfinite().all(-1).all(-1), finite)
        got, want = got.double(), want.double()  # norms of float32 results near the overflow
        norm = want.norm(dim=(-2, -1))
        normal = finite & (norm > torch.finfo(dtype).tiny)  # and to 0 or subnormals (1x1, -100)
        error = ((got - want).norm(dim=(-2, -1)) / norm)[normal].max().item()
        assert error < bound, (scale, error)


def test_matrix_exp_special_matrices():
    matrix_exp = helper("linalg_matrix_exp")
    assert torch.equal(matrix_exp(torch.zeros(2, 3, 3)), torch.eye(3).expand(2, 3, 3))
    rotation = torch.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=torch.float64) * 100  # exp = rotation by 100 rad
    torch.testing.assert_close(matrix_exp(rotation), torch.linalg.matrix_exp(rotation), rtol=1e-12, atol=1e-12)
    nilpotent = torch.tensor([[0.0, 1.0, 5.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]])
    torch.testing.assert_close(matrix_exp(nilpotent), torch.linalg.matrix_exp(nilpotent))
    big = torch.diag(torch.tensor([20.0, -20.0], dtype=torch.float64))  # needs 5 squarings
    torch.testing.assert_close(matrix_exp(big), torch.linalg.matrix_exp(big), rtol=1e-13, atol=0)
    for shape in [(0, 0), (2, 0, 0)]:
        assert matrix_exp(torch.zeros(shape)).shape == torch.linalg.matrix_exp(torch.zeros(shape)).shape
    assert matrix_exp(torch.tensor([[NAN, 0.0], [0.0, 1.0]])).isnan().any()


# ---- lstsq -------------------------------------------------------------------------------------------
LSTSQ_SHAPES = [((5, 3), (5, 2)), ((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2)), ((2, 3, 5), (2, 3)),
                ((5, 3), (5,)), ((4, 4), (4, 1)), ((2, 6, 4), (2, 6, 1)), ((2, 6, 2), (6, 3))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", LSTSQ_SHAPES)
def test_lstsq_solution_matches_torch(shapes, dtype):
    g = gen(len(shapes[0]) + shapes[0][-1])
    a = torch.randn(*shapes[0], generator=g, dtype=dtype)
    b = torch.randn(*shapes[1], generator=g, dtype=dtype)
    got = helper("linalg_lstsq")(a, b)
    try:
        want = torch.linalg.lstsq(a, b)
    except RuntimeError:  # torch does not broadcast batch dimensions here: neither need the helper
        return
    assert relative_error(got.solution, want.solution) < {torch.float32: 1e-5, torch.float64: 1e-12}[dtype]
    assert torch.equal(got.solution, got[0])
    for mine, theirs in zip(got[1:], want[1:]):  # residuals, rank, singular_values of gelsy
        assert mine.shape == theirs.shape and mine.dtype == theirs.dtype and torch.equal(mine, theirs)


def test_lstsq_keys_and_requirements():
    assert BY_KEY["linalg_lstsq"].requires == ("linalg_qr", "linalg_solve_triangular")
    for key in ("linalg_cholesky", "linalg_solve_triangular", "triangular_solve", "linalg_slogdet", "linalg_qr",
                "linalg_matrix_exp", "linalg_lstsq"):
        assert not BY_KEY[key].exact and BY_KEY[key].error_bound  # approximate when exported, measured
        assert eager_guarded(key)  # the op itself in eager: the fix is safe


# ---- triangular_solve (deprecated spelling) ----------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 5])
def test_triangular_solve_matches_torch(n, dtype):
    a, b = triangular_system(n, dtype, n + 10)
    solve = helper("triangular_solve")
    bound = {torch.float32: 1e-5, torch.float64: 1e-13}[dtype]
    for upper in (True, False):
        for transpose in (False, True):
            for unitriangular in (False, True):
                a_unit = a * 0.3 if unitriangular else a
                got = solve(b, a_unit, upper, transpose, unitriangular)
                want = torch.triangular_solve(b, a_unit, upper=upper, transpose=transpose, unitriangular=unitriangular)
                assert relative_error(got.solution, want.solution) < bound
                assert torch.equal(got.cloned_coefficient, want.cloned_coefficient)
    # broadcasting: one A for a batch of right-hand sides, and the method spelling
    got, want = solve(b, a[0], upper=False), b.triangular_solve(a[0], upper=False)
    assert relative_error(got[0], want[0]) < bound and torch.equal(got[1], want[1])


# ---- cholesky_solve -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_cholesky_solve_within_documented_bound(n, dtype):
    factor, b = triangular_system(n, dtype, 11 + n)
    solve = helper("cholesky_solve")
    bound = {torch.float32: 1e-5, torch.float64: 1e-13}[dtype]
    for upper in (False, True):
        want = torch.cholesky_solve(b, factor, upper=upper)
        assert relative_error(solve(b, factor, upper=upper), want) < bound
        assert relative_error(solve(b, factor, upper), want) < bound
    # only the named triangle is read, as LAPACK's potrs; a factor for every batch broadcasts
    assert torch.equal(solve(b, factor.tril()), solve(b, factor))
    torch.testing.assert_close(solve(b[0], factor), torch.cholesky_solve(b[0].expand_as(b), factor), rtol=bound * 10, atol=0)
