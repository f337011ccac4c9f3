import torch


def _onnx_cholesky_solve(B, L, upper=False):
    # A = L L^T (or U^T U with upper=True): a forward then a back substitution, the two
    # triangular solves LAPACK's potrs does, with the unrolled _onnx_linalg_solve_triangular.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.cholesky_solve(B, L, upper)
    first, second = (L.transpose(-2, -1), L) if upper else (L, L.transpose(-2, -1))
    Y = _onnx_linalg_solve_triangular(first, B, upper=False)
    return _onnx_linalg_solve_triangular(second, Y, upper=True)
