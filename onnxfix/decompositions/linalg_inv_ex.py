import torch


def _onnx_linalg_inv_ex(A, *, check_errors=False):
    # torch.linalg.inv_ex: _onnx_linalg_inv's inverse and an info of zeros (the decomposition
    # does not detect a singular matrix, whose inverse is inf/NaN where inv_ex sets info > 0).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.inv_ex(A, check_errors=check_errors)
    info = torch.zeros(A.shape[:-2], dtype=torch.int32, device=A.device)
    return torch.return_types.linalg_inv_ex((_onnx_linalg_inv(A), info))
