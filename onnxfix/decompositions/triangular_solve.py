import torch


def _onnx_triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    # The deprecated torch.triangular_solve(B, A) is torch.linalg.solve_triangular(A, B) with
    # the arguments reversed; transpose=True solves A^T X = B (A^T has the other triangle). The
    # second output is A broadcast to the batch shape, as torch's cloned_coefficient.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.triangular_solve(input, A, upper, transpose, unitriangular)
    n = A.shape[-1]
    batch = torch.broadcast_shapes(input.shape[:-2], A.shape[:-2])
    coefficient = A.expand(*batch, n, n).clone()
    if transpose:
        A, upper = A.transpose(-2, -1), not upper
    X = _onnx_linalg_solve_triangular(A, input, upper=upper, unitriangular=unitriangular)
    return torch.return_types.triangular_solve((X, coefficient))
