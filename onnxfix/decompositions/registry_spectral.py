"""Spectral linear algebra: symmetric eigenvalues, singular values, pseudo-inverse, norms.

All rest on one cyclic Jacobi rotation (``jacobi_rotation``): two-sided for symmetric
eigenproblems (``linalg_eigh``), one-sided (Hestenes) for singular values (``svd_jacobi``).
Both run a fixed number of sweeps unrolled over the static matrix size."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

STATIC = ("The matrix size must be static at export time (the rounds are unrolled over it: a "
          "sweep is n - 1 rounds of n/2 simultaneous rotations); batch sizes may be dynamic. ")
EIGH_BOUND = ("eigenvalues: max error 5e-6 x max|eigenvalue| in float32 and 2e-14 x max|eigenvalue| "
              "in float64 for n <= 16 (random symmetric, clustered, repeated and graded eigenvalues; "
              "tests/test_decompositions_spectral.py); eigenvectors agree with torch's up to sign "
              "per column (and to a rotation within repeated eigenvalues); the graph does not "
              "check convergence: the sweeps per size are those measured to converge, plus one "
              "(bench/jacobi_sweeps.py: n <= 24 in float32, n <= 20 in float64)")
SVD_BOUND = ("singular values: max error 5e-6 x the largest in float32 and 2e-14 x the largest "
             "in float64 for sizes up to 16 (random, rank-deficient, clustered and graded; "
             "tests/test_decompositions_spectral.py)")

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "linalg_eigh", ("torch.linalg.eigh",), False, ("linalg.eigh",),
        ("https://github.com/onnx/onnx/issues/5570",),
        STATIC + "Cyclic Jacobi with the sweeps measured to converge for each n, plus one (2 for n = 2, 4 for n = 3, 9 for n >= 15 in float32; up to 17 in float64). Only "
        "the UPLO triangle is read, as torch. Eigenvalues ascending; each eigenvector's largest "
        "component is made positive (LAPACK fixes no sign, so a column may be the negative of "
        "torch's). Real inputs only.",
        requires=("jacobi_rotation",), error_bound=EIGH_BOUND,
        rule="ONX513",
        proof=Proof(
            "(lambda r: torch.cat([r[0], (r[1][..., :, -1:] @ r[1][..., :, -1:].transpose(-2, -1)).flatten(-2)], "
            "-1))(torch.linalg.eigh(a, UPLO='U'))",
            "(lambda r: torch.cat([r[0], (r[1][..., :, -1:] @ r[1][..., :, -1:].transpose(-2, -1)).flatten(-2)], "
            "-1))(_onnx_linalg_eigh(a, UPLO='U'))",
            "(symmetric(g, b, 3),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "linalg_eigvalsh", ("torch.linalg.eigvalsh",), False, ("linalg.eigvalsh",),
        ("https://github.com/onnx/onnx/issues/5570",),
        STATIC + "The eigenvalues of _onnx_linalg_eigh (Jacobi; another algorithm than LAPACK's, "
        "so the rounding differs).",
        requires=("linalg_eigh",), error_bound=EIGH_BOUND.split("; eigenvectors")[0],
        rule="ONX513",
        proof=Proof("torch.linalg.eigvalsh(a)", "_onnx_linalg_eigvalsh(a)", "(randn(g, b, 3, 3),)", decomposition_tol=2e-6),
    ),
    Decomposition(
        "linalg_svd", ("torch.linalg.svd",), False, ("linalg.svd S",),
        (PYTORCH + "81084", PYTORCH + "63861", "https://github.com/onnx/onnx/issues/3839"),
        STATIC + "One-sided Jacobi; left vectors of singular values below max(m, n) * eps * S_max "
        "and the extra columns of full_matrices=True are an orthonormal completion (Jacobi "
        "eigenvectors of the projector I - U U^T). U and Vh are unique only up to sign per "
        "singular value (and a rotation within repeated ones): they may differ from torch's by "
        "such a change, U diag(S) Vh is the same matrix.",
        requires=("jacobi_rotation", "svd_jacobi", "linalg_eigh"), error_bound=SVD_BOUND + "; U diag(S) Vh "
        "reconstructs A, and U^T U, Vh Vh^T give I, to 1e-4 (x the largest singular value) in "
        "float32 (asserted; measured <= 1e-5 up to 16 x 16)",
        rule="ONX513",
        proof=Proof(
            "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :1, :]).flatten(-2), (r[0][..., :, "
            ":2] * r[1].unsqueeze(-2) @ r[2][..., :2, :]).flatten(-2)], -1))(torch.linalg.svd(a))",
            "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :1, :]).flatten(-2), (r[0][..., :, "
            ":2] * r[1].unsqueeze(-2) @ r[2][..., :2, :]).flatten(-2)], -1))(_onnx_linalg_svd(a))",
            "(randn(g, b, 2, 3),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "svd", ("torch.svd", "Tensor.svd"), False, ("svd S",),
        (PYTORCH + "81084",),
        STATIC + "The old API on _onnx_linalg_svd: V (not Vh), some=True as full_matrices=False, "
        "zero-filled U and V for compute_uv=False (as torch.svd). U and V are unique only up to "
        "sign per singular value: U diag(S) V^T is the same matrix.",
        requires=("linalg_svd",), error_bound=SVD_BOUND,
        rule="ONX513",
        proof=Proof(
            "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :, :1].transpose(-2, -1)).flatten(-2), (r[0][..., :, "
            ":2] * r[1].unsqueeze(-2) @ r[2][..., :, :2].transpose(-2, -1)).flatten(-2)], -1))(torch.svd(a))",
            "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :, :1].transpose(-2, -1)).flatten(-2), (r[0][..., :, "
            ":2] * r[1].unsqueeze(-2) @ r[2][..., :, :2].transpose(-2, -1)).flatten(-2)], -1))(_onnx_svd(a))",
            "(randn(g, b, 3, 2),)",
            decomposition_tol=2e-6,
        ),
    ),
    Decomposition(
        "linalg_svdvals", ("torch.linalg.svdvals",), False, ("linalg.svdvals",),
        (PYTORCH + "81084", "https://github.com/onnx/onnx/issues/3839"),
        STATIC + "One-sided (Hestenes) Jacobi on the columns of A (of A^T when A is wide), with the "
        "sweeps measured to converge for k = min(m, n), plus one (2 for k = 2, 4 for k = 3, 9 "
        "for k = 16 in float32; up to 15 in float64); singular values descending.",
        requires=("jacobi_rotation", "svd_jacobi"), error_bound=SVD_BOUND,
        rule="ONX513",
        proof=Proof("torch.linalg.svdvals(a)", "_onnx_linalg_svdvals(a)", "(randn(g, b, 2, 4),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "norm_nuclear", ("torch.norm", "Tensor.norm", "torch.linalg.norm"), False, (), (PYTORCH + "83661",),
        "torch.norm / Tensor.norm with p='nuc' (the old spelling of the nuclear norm), torch.linalg.norm with "
        "ord='nuc': while exporting, "
        "_onnx_linalg_matrix_norm(input, 'nuc', dim or every dimension), what torch.norm computes; "
        "every other norm is torch.norm itself. Export time only, keyed on both exporters' errors "
        "(the nuclear norm is an SVD: \"linalg.matrix_norm, ord==nuc\", aten._linalg_svd). Eager keeps the op.",
        requires=("linalg_matrix_norm",), static=False, wraps_op=True, rule="ONX513",
        repairs_error=r"operator linalg\.matrix_norm, ord==nuc|aten\._linalg_svd",
        error_bound="as _onnx_linalg_matrix_norm's 'nuc'",
        proof=Proof("torch.norm(a.flatten(0, 1), 'nuc') + a.norm(p='nuc', dim=(1, 2)) + torch.linalg.norm(a, 'nuc', dim=(1, 2))",
                    "_onnx_norm_nuclear(torch.norm, a.flatten(0, 1), 'nuc') + _onnx_norm_nuclear(torch.Tensor.norm, a, p='nuc', dim=(1, 2))"
                    " + _onnx_norm_nuclear(torch.linalg.norm, a, 'nuc', dim=(1, 2))",
                    "(randn(g, b, 4, 3),)", decomposition_tol=2e-5),
    ),
    Decomposition(
        "linalg_matrix_norm", ("torch.linalg.matrix_norm",), False,
        ("linalg.matrix_norm ord=2", "linalg.matrix_norm ord=-2", "linalg.matrix_norm nuc"), (),
        STATIC + "Only ord=2, -2 and 'nuc' fail to export and are rewritten: the largest, "
        "smallest and sum of the singular values of _onnx_linalg_svdvals. The helper computes "
        "the other orders ('fro', +-1, +-inf) as torch does (sums and maxima).",
        requires=("linalg_svdvals",),
        error_bound="ord=2/-2/'nuc': max error 2e-5 x the norm in float32 and 8e-14 x in float64 "
        "(batched 4 x 5 matrices, every dim/keepdim form; tests/test_decompositions_spectral.py)",
        rule="ONX513",
        proof=Proof(
            "torch.stack([torch.linalg.matrix_norm(a, ord=2), torch.linalg.matrix_norm(a, -2), "
            "torch.linalg.matrix_norm(a, 'nuc'), torch.linalg.matrix_norm(a)], -1)",
            "torch.stack([_onnx_linalg_matrix_norm(a, ord=2), _onnx_linalg_matrix_norm(a, -2), "
            "_onnx_linalg_matrix_norm(a, 'nuc'), _onnx_linalg_matrix_norm(a)], -1)",
            "(randn(g, b, 3, 2),)",
            decomposition_tol=1e-6,
        ),
    ),
    Decomposition(
        "linalg_pinv", ("torch.linalg.pinv",), False, ("linalg.pinv",), (PYTORCH + "85371",),
        STATIC + "V diag(1/S) U^T from the one-sided Jacobi SVD (eigh when hermitian=True) with "
        "torch's tolerance rule: values at or below max(atol, rtol * S_max) count as zero, "
        "rtol = max(m, n) * eps when neither is given, 0 when only atol is; rcond= is rtol. A "
        "singular value within rounding of the threshold may be kept on one side and dropped "
        "on the other.",
        requires=("jacobi_rotation", "svd_jacobi", "linalg_eigh"),
        error_bound="max error 1e-5 x |pinv(A)| in float32 on matrices up to 8x8 with condition "
        "number <= 100 (grows with the condition number, like any pseudo-inverse)",
        rule="ONX513",
        proof=Proof("torch.linalg.pinv(a)", "_onnx_linalg_pinv(a)", "(zeroed_columns(g, b, 4, 2),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "pinverse", ("torch.pinverse", "Tensor.pinverse"), False, (), (PYTORCH + "85371",),
        STATIC + "The old API of torch.linalg.pinv on _onnx_linalg_pinv: its rcond (default 1e-15) is "
        "pinv's rtol.", requires=("linalg_pinv",),
        error_bound="as _onnx_linalg_pinv's",
        rule="ONX513",
        proof=Proof("torch.pinverse(a)", "_onnx_pinverse(a)", "(zeroed_columns(g, b, 4, 2),)", decomposition_tol=1e-6),
    ),
    Decomposition(
        "linalg_matrix_rank", ("torch.linalg.matrix_rank",), False, ("linalg.matrix_rank",), (),
        STATIC + "Counts singular values (|eigenvalues| when hermitian=True) above max(atol, "
        "rtol * S_max) with torch's default rtol = max(m, n) * eps; the old `tol` is atol with "
        "rtol = 0. A singular value within rounding of the threshold may be counted differently.",
        requires=("linalg_svdvals", "linalg_eigvalsh"),
        error_bound="the same rank as torch unless a singular value lies within 5e-6 x S_max "
        "(float32) of the threshold",
        rule="ONX513",
        proof=Proof("torch.linalg.matrix_rank(a)", "_onnx_linalg_matrix_rank(a)", "(zeroed_columns(g, b, 3, 2),)"),
    ),
)
# Helpers that decompose nothing alone (not in BY_KEY: whoever calls svd_jacobi also lists
# jacobi_rotation in requires=).
SUPPORT: tuple[str, ...] = ("jacobi_rotation", "svd_jacobi")
