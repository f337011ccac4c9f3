import torch


def _onnx_cholesky_inverse(L, upper=False):
    # torch.cholesky_inverse: the inverse of A = L L^T (A = U^T U with upper=True) from its
    # triangular factor, as inv(L)^T inv(L) (inv(U) inv(U)^T) with _onnx_linalg_inv, unrolled over
    # the static matrix size. The rounding differs from LAPACK's potri.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.cholesky_inverse(L, upper=upper)
    inverse = _onnx_linalg_inv(L)
    if upper:
        return inverse @ inverse.transpose(-2, -1)
    return inverse.transpose(-2, -1) @ inverse
