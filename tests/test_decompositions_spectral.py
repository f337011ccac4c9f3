"""(a) The spectral decompositions (onnxfix/decompositions/registry_spectral.py) against eager
torch: eigenvalues and singular values within the documented bounds, eigen- and singular vectors
up to sign (via reconstructions, orthonormality and projectors), torch's tolerance rules for
pinv / matrix_rank, matrix_norm's orders, dim and keepdim, empty and 1x1 matrices, batches,
float32 and float64. The exports are the records' `proof`s (run by tests/test_decompositions.py)."""

from __future__ import annotations

import pytest
import torch

from onnxfix.decompositions import BY_KEY, eager_guarded, load_function

# Documented bounds (registry_spectral.py): error / largest |value|.
BOUND = {torch.float32: 5e-6, torch.float64: 2e-14}
SIZES = [1, 2, 3, 5, 8, 12, 16]


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


def relative(got, want):
    scale = want.abs().amax(-1, keepdim=True).clamp_min(torch.finfo(want.dtype).tiny)
    return ((got - want).abs() / scale).max().item() if want.numel() else 0.0


def with_spectrum(values, seed, dtype):
    """A symmetric matrix with the given eigenvalues (a random orthogonal basis)."""
    values = torch.as_tensor(values, dtype=torch.float64)
    q, _ = torch.linalg.qr(torch.randn(len(values), len(values), generator=gen(seed), dtype=torch.float64))
    return ((q * values) @ q.T).to(dtype)


def spectra(n):
    """Random, clustered (three within 1e-6), repeated and graded (1e-6 .. 1) eigenvalues, with
    negatives: the clustered and graded ones converge slowest (bench/jacobi_sweeps.py)."""
    yield torch.randn(n, generator=gen(n)).tolist()
    yield ([1.0, 1.0 + 1e-6, 1.0 - 1e-6] + torch.linspace(-4, 7, max(n - 3, 0)).tolist())[:n]
    yield ([2.0] * (n // 2) + [-3.0] * (n - n // 2))
    yield (torch.logspace(-6, 0, n, dtype=torch.float64) * torch.tensor([1.0, -1.0]).repeat(n)[:n]).tolist()


# ---- eigh / eigvalsh --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", SIZES)
def test_eigvalsh_and_eigh_within_bound(n, dtype):
    for seed, values in enumerate(spectra(n)):
        a = with_spectrum(values, seed, dtype)
        want = torch.linalg.eigvalsh(a.double())
        assert relative(helper("linalg_eigvalsh")(a).double(), want) < BOUND[dtype]
        w, v = helper("linalg_eigh")(a)
        assert w.dtype == dtype and v.shape == (n, n)
        assert relative(w.double(), want) < BOUND[dtype]
        eye = torch.eye(n, dtype=dtype)
        torch.testing.assert_close(v.T @ v, eye, rtol=0, atol=20 * BOUND[dtype])
        torch.testing.assert_close((v * w) @ v.T, a, rtol=0, atol=20 * BOUND[dtype] * want.abs().max().item())


def test_eigh_vectors_equal_torchs_up_to_sign():
    a = with_spectrum([-3.0, -1.0, 0.5, 2.0, 6.0], 7, torch.float64)  # distinct eigenvalues
    w, v = helper("linalg_eigh")(a)
    w0, v0 = torch.linalg.eigh(a)
    signs = (v * v0).sum(0).sign()
    torch.testing.assert_close(v, v0 * signs, rtol=0, atol=1e-13)
    assert torch.equal(v.abs().argmax(0), v.abs().argmax(0))
    largest = v.gather(0, v.abs().argmax(0, keepdim=True))
    assert (largest > 0).all()  # the documented sign convention


def test_eigh_reads_one_triangle_batched_and_edges():
    a = torch.randn(3, 2, 4, 4, generator=gen(1), dtype=torch.float64)  # not symmetric
    for uplo in ("L", "U", "l"):
        want = torch.linalg.eigvalsh(a, UPLO=uplo.upper())
        assert relative(helper("linalg_eigvalsh")(a, UPLO=uplo), want) < 1e-14
        assert relative(helper("linalg_eigh")(a, uplo).eigenvalues, want) < 1e-14
    one = torch.tensor([[[-2.5]]])  # 1x1 and diagonal inputs below: nothing rotates, exact
    assert torch.equal(helper("linalg_eigvalsh")(one), torch.linalg.eigvalsh(one))
    assert torch.equal(helper("linalg_eigh")(one).eigenvectors, torch.ones(1, 1, 1))
    empty = torch.zeros(2, 0, 0)
    got, want = helper("linalg_eigh")(empty), torch.linalg.eigh(empty)
    assert got.eigenvalues.shape == want.eigenvalues.shape and got.eigenvectors.shape == want.eigenvectors.shape
    diagonal = torch.diag(torch.tensor([3.0, -1.0, 2.0]))  # already diagonal: nothing rotates
    assert torch.equal(helper("linalg_eigvalsh")(diagonal), torch.tensor([-1.0, 2.0, 3.0]))
    assert torch.equal(helper("linalg_eigh")(diagonal).eigenvectors.abs().sum(0), torch.ones(3))
    assert torch.equal(helper("linalg_eigvalsh")(torch.zeros(3, 3)), torch.zeros(3))


# ---- svd / svdvals ---------------------------------------------------------------------------
SHAPES = [(1, 1), (1, 5), (5, 1), (4, 3), (3, 4), (10, 4), (4, 10), (14, 14), (16, 16)]


def matrices(m, n, dtype):
    yield torch.randn(4, m, n, generator=gen(m * 31 + n), dtype=torch.float64).to(dtype)
    k = min(m, n)
    low = torch.randn(m, max(k - 1, 1), generator=gen(1), dtype=torch.float64) @ torch.randn(max(k - 1, 1), n, generator=gen(2), dtype=torch.float64)
    yield low.to(dtype)  # rank-deficient when k > 1
    u, _ = torch.linalg.qr(torch.randn(m, m, generator=gen(3), dtype=torch.float64))
    v, _ = torch.linalg.qr(torch.randn(n, n, generator=gen(4), dtype=torch.float64))
    s = torch.tensor([3.0, 3.0, 3.0 + 1e-6, 1.0, 1.0] + [0.5] * 16, dtype=torch.float64)[:k]  # clustered
    yield (u[:, :k] * s @ v[:, :k].T).to(dtype)
    graded = torch.logspace(0, -6, k, dtype=torch.float64)
    yield (u[:, :k] * graded @ v[:, :k].T).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("m, n", SHAPES)
def test_svdvals_and_svd_within_bound(m, n, dtype):
    for a in matrices(m, n, dtype):
        want = torch.linalg.svdvals(a.double())
        got = helper("linalg_svdvals")(a)
        assert got.dtype == dtype and got.shape == want.shape
        assert relative(got.double(), want) < BOUND[dtype]
        for full in (True, False) if m != n else (False,):  # a square matrix's full and reduced SVD are one
            U, S, Vh = helper("linalg_svd")(a, full_matrices=full)
            U0, S0, Vh0 = torch.linalg.svd(a, full_matrices=full)
            assert (U.shape, S.shape, Vh.shape) == (U0.shape, S0.shape, Vh0.shape)
            assert relative(S.double(), want) < BOUND[dtype]
            k = min(m, n)
            scale = want.max().item()
            torch.testing.assert_close(U[..., :k] * S.unsqueeze(-2) @ Vh[..., :k, :], a, rtol=0, atol=20 * BOUND[dtype] * scale)
            torch.testing.assert_close(U.mT @ U, torch.eye(U.shape[-1], dtype=dtype).expand(U.mT.shape[:-2] + (U.shape[-1],) * 2), rtol=0, atol=20 * BOUND[dtype])
            torch.testing.assert_close(Vh @ Vh.mT, torch.eye(Vh.shape[-2], dtype=dtype).expand(Vh.shape[:-2] + (Vh.shape[-2],) * 2), rtol=0, atol=20 * BOUND[dtype])


def test_svd_vectors_equal_torchs_up_to_sign():
    a = torch.randn(6, 4, generator=gen(5), dtype=torch.float64)
    U, S, Vh = helper("linalg_svd")(a, False)
    U0, S0, Vh0 = torch.linalg.svd(a, False)
    signs = (U * U0).sum(0).sign()
    torch.testing.assert_close(U, U0 * signs, rtol=0, atol=1e-13)
    torch.testing.assert_close(Vh, Vh0 * signs.unsqueeze(-1), rtol=0, atol=1e-13)


def test_svd_edges_zero_and_empty():
    zero = torch.zeros(3, 2)
    U, S, Vh = helper("linalg_svd")(zero)
    assert torch.equal(S, torch.zeros(2))
    torch.testing.assert_close(U.T @ U, torch.eye(3), rtol=0, atol=0)
    for shape in ((2, 0, 3), (0, 4, 4), (3, 0)):
        empty = torch.zeros(shape)
        assert helper("linalg_svdvals")(empty).shape == torch.linalg.svdvals(empty).shape
        got, want = helper("linalg_svd")(empty), torch.linalg.svd(empty)
        assert [t.shape for t in got] == [t.shape for t in want]
    assert helper("linalg_svdvals")(torch.randn(2, 3), driver=None).shape == (2,)


# ---- matrix_norm -------------------------------------------------------------------------------
ORDS = ["fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("ord", ORDS)
def test_matrix_norm_every_order_dim_keepdim(ord, dtype):
    a = torch.randn(3, 4, 5, generator=gen(6), dtype=dtype)
    cases = [dict(), dict(dim=(0, 2)), dict(dim=(-1, -3), keepdim=True), dict(keepdim=True)]
    for kwargs in cases:
        want = torch.linalg.matrix_norm(a, ord, **kwargs)
        got = helper("linalg_matrix_norm")(a, ord, **kwargs)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert relative(got.reshape(-1).double(), want.reshape(-1).double()) < 4 * BOUND[dtype]
    want = torch.linalg.matrix_norm(a[0], ord=ord, dtype=torch.float64)
    got = helper("linalg_matrix_norm")(a[0], ord=ord, dtype=torch.float64)
    assert got.dtype == torch.float64 and abs(got.item() - want.item()) <= 1e-13 * want.item()


def test_matrix_norm_rank_deficient_and_unknown_order():
    low = torch.randn(5, 2, generator=gen(7), dtype=torch.float64) @ torch.randn(2, 4, generator=gen(8), dtype=torch.float64)
    assert helper("linalg_matrix_norm")(low, -2).item() < 1e-14  # smallest singular value 0
    assert abs(helper("linalg_matrix_norm")(low, "nuc").item() - torch.linalg.matrix_norm(low, "nuc").item()) < 1e-13
    with pytest.raises(RuntimeError, match="not supported"):
        helper("linalg_matrix_norm")(low, 3)


# ---- pinv / matrix_rank ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("m, n", [(4, 3), (3, 4), (5, 5), (1, 4), (8, 8), (6, 2)])
def test_pinv_and_matrix_rank_default_tolerance(m, n, dtype):
    q1, _ = torch.linalg.qr(torch.randn(m, m, generator=gen(m), dtype=torch.float64))
    q2, _ = torch.linalg.qr(torch.randn(n, n, generator=gen(n + 10), dtype=torch.float64))
    k = min(m, n)
    for s in (torch.logspace(0, 2, k, dtype=torch.float64), torch.cat([torch.logspace(0, 1, k)[: (k + 1) // 2], torch.zeros(k // 2)]).double()):
        a = (q1[:, :k] * s @ q2[:, :k].T).to(dtype)  # condition number <= 100, or rank (k+1)//2
        full_rank = bool((s > 0).all())
        want = torch.linalg.pinv(a.double()) if full_rank else torch.linalg.pinv(a).double()
        got = helper("linalg_pinv")(a)
        assert got.shape == want.shape and got.dtype == dtype
        bound = {torch.float32: 1e-5 if full_rank else 1e-4, torch.float64: 1e-12}[dtype]
        assert (got.double() - want).abs().max().item() < bound * want.abs().max().item()
        # an integer: the computed singular values lie >= 10x away from the default threshold
        assert torch.equal(helper("linalg_matrix_rank")(a), torch.linalg.matrix_rank(a))


def test_pinv_bound_against_float32_torch():
    """The documented pinv bound: 1e-5 x |pinv(A)| in float32, condition number <= 100, n <= 8."""
    for n in (2, 3, 5, 8):
        q1, _ = torch.linalg.qr(torch.randn(4, n, n, generator=gen(n), dtype=torch.float64))
        q2, _ = torch.linalg.qr(torch.randn(4, n, n, generator=gen(n + 1), dtype=torch.float64))
        a = (q1 * torch.logspace(0, 2, n, dtype=torch.float64) @ q2.mT).float()
        want = torch.linalg.pinv(a.double())
        error = (helper("linalg_pinv")(a).double() - want).abs().amax((-2, -1)) / want.abs().amax((-2, -1))
        assert error.max().item() < 1e-5, error


def test_pinv_and_rank_tolerance_arguments_match_torch():
    a = torch.randn(3, 5, 4, generator=gen(9), dtype=torch.float64)
    rtol = torch.tensor([0.05, 0.3, 0.9], dtype=torch.float64)
    cases = [dict(atol=0.5), dict(rtol=0.2), dict(atol=0.4, rtol=0.1), dict(rtol=rtol), dict(atol=rtol * 3), dict(atol=0.0)]
    for kwargs in cases:
        torch.testing.assert_close(helper("linalg_pinv")(a, **kwargs), torch.linalg.pinv(a, **kwargs), rtol=0, atol=1e-12)
        assert torch.equal(helper("linalg_matrix_rank")(a, **kwargs), torch.linalg.matrix_rank(a, **kwargs))
    torch.testing.assert_close(helper("linalg_pinv")(a, 0.3), torch.linalg.pinv(a, 0.3), rtol=0, atol=1e-12)  # rcond
    torch.testing.assert_close(helper("linalg_pinv")(a, rcond=0.3), torch.linalg.pinv(a, rcond=0.3), rtol=0, atol=1e-12)
    assert torch.equal(helper("linalg_matrix_rank")(a, 1.2), torch.linalg.matrix_rank(a, 1.2))  # old tol
    assert torch.equal(helper("linalg_matrix_rank")(a, tol=1.2), torch.linalg.matrix_rank(a, tol=1.2))


def test_pinv_and_rank_hermitian_read_the_lower_triangle():
    s = torch.randn(2, 5, 5, generator=gen(10), dtype=torch.float64)
    s = s.tril() + s.tril(-1).mT  # symmetric
    s = s + torch.triu(torch.ones(5, 5, dtype=torch.float64), 1)  # garbage above: torch ignores it
    low = with_spectrum([0.0, 0.0, 1.5, -2.0, 4.0], 11, torch.float64)
    for a in (s, low):
        torch.testing.assert_close(helper("linalg_pinv")(a, hermitian=True), torch.linalg.pinv(a, hermitian=True), rtol=0, atol=1e-12)
        assert torch.equal(helper("linalg_matrix_rank")(a, hermitian=True), torch.linalg.matrix_rank(a, hermitian=True))


def test_pinv_and_rank_edges():
    for a in (torch.zeros(3, 3), torch.zeros(2, 0, 3), torch.zeros(4, 0), torch.tensor([[2.0]])):
        want = torch.linalg.pinv(a)
        got = helper("linalg_pinv")(a)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=0, atol=1e-7)
        assert torch.equal(helper("linalg_matrix_rank")(a), torch.linalg.matrix_rank(a))


def test_every_spectral_key_is_tested_here():
    for key in ("linalg_eigh", "linalg_eigvalsh", "linalg_svd", "linalg_svdvals", "linalg_matrix_norm", "linalg_pinv", "linalg_matrix_rank"):
        assert key in BY_KEY and not BY_KEY[key].exact  # exported: another algorithm's rounding
        assert eager_guarded(key)  # the op itself in eager: the fix is safe
