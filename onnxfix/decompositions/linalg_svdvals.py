import torch


def _onnx_linalg_svdvals(A, *, driver=None):
    # Singular values, descending, by one-sided Jacobi (_onnx_svd_jacobi). `driver` only
    # selects a CUDA algorithm in torch and is ignored.
    return _onnx_svd_jacobi(A)[1]
