import torch


def _onnx_linalg_cholesky_ex(A, *, upper=False, check_errors=False):
    # torch.linalg.cholesky_ex (GPyTorch's psd_safe_cholesky): _onnx_linalg_cholesky's factor and
    # an info of zeros (the decomposition does not detect a matrix that is not positive definite,
    # whose factor is NaN where cholesky_ex sets info > 0).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.cholesky_ex(A, upper=upper, check_errors=check_errors)
    info = torch.zeros(A.shape[:-2], dtype=torch.int32, device=A.device)
    return torch.return_types.linalg_cholesky_ex((_onnx_linalg_cholesky(A, upper=upper), info))
