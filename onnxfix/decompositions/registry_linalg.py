"""Linear algebra: triangular factorisations and what they give (Cholesky, QR, triangular solves,
determinants, least squares, matrix exponential)."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

ONNX_LINALG = "https://github.com/onnx/onnx/issues/7144"  # GP models needing cholesky + triangular solves

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "linalg_cholesky", ("torch.linalg.cholesky", "torch.cholesky", "Tensor.cholesky"), False,
        ("linalg.cholesky", "cholesky", "Tensor.cholesky"),
        (PYTORCH + "103571", ONNX_LINALG),
        "Column-by-column Cholesky, unrolled over the matrix size n (n must be static; batch "
        "sizes may be dynamic; the graph grows with n^2). Reads the lower triangle (the upper "
        "one with upper=True) as torch does. The summation order differs from LAPACK's potrf, "
        "and a matrix that is not positive definite gives NaN where torch raises.",
        error_bound="max abs error 5e-7 (float32) and 1e-15 (float64) against torch on SPD "
        "matrices with eigenvalues in [1, 10], n <= 8 (tests/test_decompositions_linalg.py); grows "
        "with the condition number",
        rule="ONX512",
        proof=Proof(
            "torch.linalg.cholesky(a) + a.cholesky(upper=True)",
            "_onnx_linalg_cholesky(a) + _onnx_linalg_cholesky(a, upper=True)",
            "(spd(g, b, 4),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "linalg_cholesky_ex", ("torch.linalg.cholesky_ex",), False, (), (),
        "torch.linalg.cholesky_ex (GPyTorch's psd_safe_cholesky) on _onnx_linalg_cholesky: the "
        "factor, and an info of zeros (a matrix that is not positive definite gives NaN where "
        "cholesky_ex sets info > 0).", requires=("linalg_cholesky",),
        error_bound="as _onnx_linalg_cholesky's",
        rule="ONX512",
        proof=Proof("torch.linalg.cholesky_ex(a).L + torch.linalg.cholesky_ex(a, upper=True).info[:, None, None]",
                    "_onnx_linalg_cholesky_ex(a).L + _onnx_linalg_cholesky_ex(a, upper=True).info[:, None, None]",
                    "(spd(g, b, 4),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "cholesky_inverse", ("torch.cholesky_inverse", "Tensor.cholesky_inverse"), False, (), (),
        "The inverse of L L^T (U^T U with upper=True) from the triangular factor, as inv(L)^T inv(L) "
        "with _onnx_linalg_inv (unrolled over the static matrix size); the rounding differs from "
        "LAPACK's potri.", requires=("linalg_inv",),
        error_bound="as _onnx_linalg_inv's, squared in the condition number of the factor",
        rule="ONX512",
        proof=Proof("torch.cholesky_inverse(torch.tril(a)) + torch.cholesky_inverse(torch.triu(a), upper=True)",
                    "_onnx_cholesky_inverse(torch.tril(a)) + _onnx_cholesky_inverse(torch.triu(a), upper=True)",
                    "(well_conditioned(g, b, 4),)", decomposition_tol=1e-5),
    ),
    Decomposition(
        "linalg_solve_triangular", ("torch.linalg.solve_triangular",), False,
        ("linalg.solve_triangular",), (PYTORCH + "103572",),  # and onnx#7144 (listed once, above)
        "Forward/back substitution unrolled over n (static; batch sizes may be dynamic and "
        "broadcast). left=False and unitriangular=True are supported; only the named triangle "
        "is read, as in torch. The summation order differs from LAPACK's trsm.",
        error_bound="max relative error 1e-5 (float32) and 1e-13 (float64) against torch on "
        "triangular systems with |diagonal| >= 2 (0.3 scale when unitriangular), n <= 8; grows with the "
        "condition number",
        rule="ONX512",
        proof=Proof(
            "torch.linalg.solve_triangular(a, c, upper=True) + "
            "torch.linalg.solve_triangular(a, c.transpose(-2, -1), upper=False, left=False).transpose(-2, -1)",
            "_onnx_linalg_solve_triangular(a, c, upper=True) + "
            "_onnx_linalg_solve_triangular(a, c.transpose(-2, -1), upper=False, left=False).transpose(-2, -1)",
            "(triangular(g, b, 4), randn(g, b, 4, 2))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "triangular_solve", ("torch.triangular_solve", "Tensor.triangular_solve"), False,
        ("triangular_solve", "Tensor.triangular_solve"), (),
        "The deprecated (B, A) spelling of solve_triangular (transpose= solves A^T X = B); "
        "returns (solution, cloned_coefficient) with A broadcast to the batch shape, as torch. "
        "Same method, limits and bound as _onnx_linalg_solve_triangular.",
        requires=("linalg_solve_triangular",),
        error_bound="as _onnx_linalg_solve_triangular: max relative error 1e-5 (float32) and "
        "1e-13 (float64)",
        rule="ONX512",
        proof=Proof(
            "torch.triangular_solve(c, a, upper=False, transpose=True)[0] + c.triangular_solve(a)[0]",
            "_onnx_triangular_solve(c, a, upper=False, transpose=True)[0] + _onnx_triangular_solve(c, a)[0]",
            "(triangular(g, b, 4), randn(g, b, 4, 2))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "cholesky_solve", ("torch.cholesky_solve", "Tensor.cholesky_solve"), False, ("cholesky_solve",), (),
        "Solves A X = B from A's Cholesky factor as LAPACK's potrs does: a forward then a back "
        "substitution with _onnx_linalg_solve_triangular (n static, batch dynamic and broadcast); "
        "only the factor's named triangle is read. The summation order differs from LAPACK's.",
        requires=("linalg_solve_triangular",),
        error_bound="max relative error 1e-5 (float32) and 1e-13 (float64) against torch on "
        "factors with |diagonal| >= 2, n <= 8 (tests/test_decompositions_linalg.py)",
        rule="ONX512",
        proof=Proof(
            "torch.cholesky_solve(c, a) + c.cholesky_solve(a.transpose(-2, -1), upper=True)",
            "_onnx_cholesky_solve(c, a) + _onnx_cholesky_solve(c, a.transpose(-2, -1), upper=True)",
            "(triangular(g, b, 4), randn(g, b, 4, 2))",
            params="a, c", decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "linalg_slogdet", ("torch.linalg.slogdet", "torch.slogdet", "Tensor.slogdet"), False,
        ("linalg.slogdet", "slogdet", "Tensor.slogdet"),
        ("https://github.com/onnx/onnx/issues/3174",),
        "LU elimination with partial pivoting (first largest pivot, as getrf), unrolled over n "
        "(static). sign = parity of the row swaps times the signs of the pivots, logabsdet = sum "
        "of log|pivot|; a singular matrix (a zero pivot) gives sign 0 and logabsdet -inf as "
        "torch. Returns the (sign, logabsdet) named tuple. Nearly singular matrices can get a "
        "different sign or a -inf where LAPACK's rounding gives a tiny pivot (or the reverse).",
        error_bound="sign as the true determinant's and logabsdet within n * cond(A) * eps of "
        "the true value (float64 LAPACK for float32, mpmath for float64) on random Gaussian "
        "matrices (condition numbers up to ~1e3), n <= 8: the error is the relative error of "
        "det and grows with the condition number",
        rule="ONX512",
        proof=Proof(
            "*torch.linalg.slogdet(a)",
            "*_onnx_linalg_slogdet(a)",
            "(randn(g, b, 4, 4) + 2 * torch.eye(4),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "linalg_qr", ("torch.linalg.qr",), False, ("linalg.qr",), (),
        "Householder QR with LAPACK's (geqrf/orgqr) sign convention, unrolled over min(m, n) "
        "(static sizes). Modes reduced, complete and r (Q is then an empty tensor, as torch). "
        "For full-rank A the factors match torch's to rounding, signs included. For "
        "rank-deficient A the columns of Q beyond the rank (and the sign of R's rounding-level "
        "diagonal entries) are decided by rounding noise and differ from torch's.",
        error_bound="max abs error 5e-6 in Q and 1e-5 in R (float32), 1e-14 and 2e-14 (float64) "
        "against torch on random Gaussian square, tall and wide matrices up to 6x6 (150 per "
        "shape); grows with the condition number",
        rule="ONX512",
        proof=Proof(
            "torch.cat(torch.linalg.qr(a, mode='complete'), -1)",
            "torch.cat(_onnx_linalg_qr(a, mode='complete'), -1)",
            "(randn(g, b, 5, 3),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "qr", ("torch.qr", "Tensor.qr"), False, ("qr", "Tensor.qr"), ("https://github.com/iperov/DeepFaceLive/issues/142",),
        "The old API on _onnx_linalg_qr: some=True is mode 'reduced', some=False 'complete' "
        "(torch.qr's documented equivalence).",
        requires=("linalg_qr",),
        error_bound="as linalg_qr's",
        rule="ONX512",
        proof=Proof(
            "torch.cat(torch.qr(a, some=False), -1)",
            "torch.cat(_onnx_qr(a, some=False), -1)",
            "(randn(g, b, 5, 3),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "linalg_matrix_exp", ("torch.linalg.matrix_exp", "torch.matrix_exp", "Tensor.matrix_exp"), False,
        ("linalg.matrix_exp", "matrix_exp", "Tensor.matrix_exp"), (),
        "Scaling and squaring: s = ceil(log2 ||A||_1) squarings (at most 20, applied under "
        "torch.where masks so the graph is static), degree-18 Taylor polynomial on A / 2^s "
        "(Horner, 17 matmuls). Static matrix size. Beyond ||A||_1 = 2^20 the scaled norm "
        "exceeds 1 and the error grows. torch uses a different (norm-dependent degree) "
        "approximant, so rounding differs.",
        error_bound="relative (Frobenius) error against torch below 3e-5 (float32) and 1e-12 "
        "(float64) on random matrices with ||A||_1 up to about 100, n <= 8; comparable to "
        "torch's own error against a float64 reference",
        rule="ONX512",
        proof=Proof(
            "torch.linalg.matrix_exp(a)",
            "_onnx_linalg_matrix_exp(a)",
            "(randn(g, b, 3, 3) * 2,)",
            decomposition_tol=2e-5,
        ),
    ),
    Decomposition(
        "linalg_lstsq", ("torch.linalg.lstsq",), False, ("linalg.lstsq",), (),
        "Householder QR (m >= n: R x = Q^T B; m < n: minimum-norm solution from the QR of A^T) "
        "and a triangular solve; static sizes. Faithful for A of full rank only: torch's default "
        "driver (gelsy) is rank-revealing, the helper is not (a rank-deficient A gives inf/NaN "
        "or another solution). residuals and singular_values are empty and rank = min(m, n), as "
        "gelsy reports for full rank. Calls passing rcond= or driver= keep the original op.",
        requires=("linalg_qr", "linalg_solve_triangular"),
        error_bound="max relative error 1e-5 (float32) and 1e-12 (float64) in the solution "
        "against torch on random full-rank tall and wide systems up to 6x4",
        rule="ONX512",
        proof=Proof(
            "torch.linalg.lstsq(a, c).solution",
            "_onnx_linalg_lstsq(a, c).solution",
            "(randn(g, b, 5, 3), randn(g, b, 5, 2))",
            params="a, c", decomposition_tol=2e-6,
        ),
    ),
)
