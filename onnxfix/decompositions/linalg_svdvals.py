import torch


def _onnx_linalg_svdvals(A, *, driver=None):
    # Singular values, descending, by one-sided Jacobi (_onnx_svd_jacobi). `driver` only
    # selects a CUDA algorithm in torch and is ignored.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.svdvals(A, driver=driver)
    return _onnx_svd_jacobi(A)[1]
