import torch


def _onnx_linalg_solve_ex(A, B, *, left=True, check_errors=False):
    # torch.linalg.solve_ex: _onnx_linalg_solve's solution and an info of zeros (the decomposition
    # does not detect a singular matrix, whose solution is inf/NaN where solve_ex sets info > 0).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.solve_ex(A, B, left=left, check_errors=check_errors)
    info = torch.zeros(A.shape[:-2], dtype=torch.int32, device=A.device)
    return torch.return_types.linalg_solve_ex((_onnx_linalg_solve(A, B, left=left), info))
