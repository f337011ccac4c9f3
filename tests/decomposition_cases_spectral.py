"""Export cases of the spectral decompositions (onnxfix/decompositions/registry_spectral.py), read
by tests/decomposition_exports.py (format: tests/decomposition_cases_core.py).

Eigenvectors and singular vectors are unique only up to sign, so the cases compare what does not
depend on it: eigenvalues, singular values, rank-one projectors v v^T and u v^T, reconstructions.
The matrices are small (2 to 4 rows): the graph grows with n^2 x sweeps, and the dynamo exporter
takes minutes on a few hundred Jacobi rounds; tests/test_decompositions_spectral.py covers sizes
up to 16 in eager.
"""

import torch


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def symmetric(g, batch, n):
    x = torch.randn(batch, n, n, generator=g)
    return x + x.transpose(-2, -1)


def zeroed_columns(g, batch, m, n):
    """Rank below n for some matrices: whole columns set to zero (exact zero singular values,
    far from any tolerance)."""
    keep = torch.rand(batch, 1, n, generator=g) > 0.4
    return torch.randn(batch, m, n, generator=g) * keep


CASES = {
    "linalg_eigh": (
        "(lambda r: torch.cat([r[0], (r[1][..., :, -1:] @ r[1][..., :, -1:].transpose(-2, -1)).flatten(-2)], -1))(torch.linalg.eigh(a, UPLO='U'))",
        "(lambda r: torch.cat([r[0], (r[1][..., :, -1:] @ r[1][..., :, -1:].transpose(-2, -1)).flatten(-2)], -1))(_onnx_linalg_eigh(a, UPLO='U'))",
        lambda g, b: (symmetric(g, b, 3),), True),
    "linalg_eigvalsh": ("torch.linalg.eigvalsh(a)", "_onnx_linalg_eigvalsh(a)", lambda g, b: (randn(g, b, 3, 3),), True),
    "linalg_svdvals": ("torch.linalg.svdvals(a)", "_onnx_linalg_svdvals(a)", lambda g, b: (randn(g, b, 2, 4),), True),
    "linalg_svd": (
        "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :1, :]).flatten(-2), (r[0][..., :, :2] * r[1].unsqueeze(-2) @ r[2][..., :2, :]).flatten(-2)], -1))(torch.linalg.svd(a))",
        "(lambda r: torch.cat([r[1], (r[0][..., :, :1] @ r[2][..., :1, :]).flatten(-2), (r[0][..., :, :2] * r[1].unsqueeze(-2) @ r[2][..., :2, :]).flatten(-2)], -1))(_onnx_linalg_svd(a))",
        lambda g, b: (randn(g, b, 2, 3),), True),
    "linalg_matrix_norm": (
        "torch.stack([torch.linalg.matrix_norm(a, ord=2), torch.linalg.matrix_norm(a, -2), torch.linalg.matrix_norm(a, 'nuc'), torch.linalg.matrix_norm(a)], -1)",
        "torch.stack([_onnx_linalg_matrix_norm(a, ord=2), _onnx_linalg_matrix_norm(a, -2), _onnx_linalg_matrix_norm(a, 'nuc'), _onnx_linalg_matrix_norm(a)], -1)",
        lambda g, b: (randn(g, b, 3, 2),), True),
    "linalg_pinv": ("torch.linalg.pinv(a)", "_onnx_linalg_pinv(a)", lambda g, b: (zeroed_columns(g, b, 4, 2),), True),
    "linalg_matrix_rank": ("torch.linalg.matrix_rank(a)", "_onnx_linalg_matrix_rank(a)", lambda g, b: (zeroed_columns(g, b, 3, 2),), True),
}
TOLERANCE = {key: 1e-4 for key in CASES}
