"""Export cases of the linear-algebra factorisations (onnxfix/decompositions/registry_linalg.py,
rule ONX512), read by tests/decomposition_exports.py (format: tests/decomposition_cases_core.py).
Matrix sizes are static, batch sizes dynamic."""

import torch


def randn(g, *shape):
    return torch.randn(*shape, generator=g)


def spd(g, batch, n):
    a = torch.randn(batch, n, n, generator=g)
    return a @ a.transpose(-2, -1) + n * torch.eye(n)


def triangular(g, batch, n):
    a = torch.randn(batch, n, n, generator=g)
    return a + torch.diag_embed(3 * a.diagonal(dim1=-2, dim2=-1).sign())  # |diagonal| >= 3


CASES = {
    "linalg_cholesky": (
        "torch.linalg.cholesky(a) + a.cholesky(upper=True)",
        "_onnx_linalg_cholesky(a) + _onnx_linalg_cholesky(a, upper=True)",
        lambda g, b: (spd(g, b, 4),), True,
    ),
    "linalg_solve_triangular": (
        "torch.linalg.solve_triangular(a, c, upper=True) + torch.linalg.solve_triangular(a, c.transpose(-2, -1), upper=False, left=False).transpose(-2, -1)",
        "_onnx_linalg_solve_triangular(a, c, upper=True) + _onnx_linalg_solve_triangular(a, c.transpose(-2, -1), upper=False, left=False).transpose(-2, -1)",
        lambda g, b: (triangular(g, b, 4), randn(g, b, 4, 2)), True,
    ),
    "triangular_solve": (
        "torch.triangular_solve(c, a, upper=False, transpose=True)[0] + c.triangular_solve(a)[0]",
        "_onnx_triangular_solve(c, a, upper=False, transpose=True)[0] + _onnx_triangular_solve(c, a)[0]",
        lambda g, b: (triangular(g, b, 4), randn(g, b, 4, 2)), True,
    ),
    "cholesky_solve": (
        "torch.cholesky_solve(c, a) + c.cholesky_solve(a.transpose(-2, -1), upper=True)",
        "_onnx_cholesky_solve(c, a) + _onnx_cholesky_solve(c, a.transpose(-2, -1), upper=True)",
        lambda g, b: (triangular(g, b, 4), randn(g, b, 4, 2)), True,
    ),
    "linalg_slogdet": (
        "*torch.linalg.slogdet(a)", "*_onnx_linalg_slogdet(a)",
        lambda g, b: (randn(g, b, 4, 4) + 2 * torch.eye(4),), True,
    ),
    "linalg_qr": (
        "torch.cat(torch.linalg.qr(a, mode='complete'), -1)", "torch.cat(_onnx_linalg_qr(a, mode='complete'), -1)",
        lambda g, b: (randn(g, b, 5, 3),), True,
    ),
    "linalg_matrix_exp": (
        "torch.linalg.matrix_exp(a)", "_onnx_linalg_matrix_exp(a)",
        lambda g, b: (randn(g, b, 3, 3) * 2,), True,
    ),
    "linalg_lstsq": (
        "torch.linalg.lstsq(a, c).solution", "_onnx_linalg_lstsq(a, c).solution",
        lambda g, b: (randn(g, b, 5, 3), randn(g, b, 5, 2)), True,
    ),
}
PARAMS = {"cholesky_solve": "a, c", "linalg_solve_triangular": "a, c", "triangular_solve": "a, c", "linalg_lstsq": "a, c"}
MULTI_OUTPUT = ("linalg_slogdet",)
