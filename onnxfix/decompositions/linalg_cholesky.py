import torch


def _onnx_linalg_cholesky(A, upper=False):
    # Cholesky factorisation computed column by column (the left-looking order of LAPACK's
    # unblocked potf2), unrolled over the (static) matrix size n; batch dimensions may be
    # dynamic. Like torch it reads only the lower triangle of A (the upper one when upper=True).
    # A matrix that is not positive definite gives NaN where torch raises.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.cholesky(A, upper=upper)
    if upper:
        return _onnx_linalg_cholesky(A.transpose(-2, -1)).transpose(-2, -1)
    n = A.shape[-1]
    rows = torch.arange(n, device=A.device)
    columns = []
    for j in range(n):  # noqa: ONX603 - unrolled on purpose: n is the static matrix size
        v = A[..., :, j]
        if columns:
            L = torch.stack(columns, -1)  # the j columns computed so far, (..., n, j)
            v = v - (L * L[..., j : j + 1, :]).sum(-1)
        d = v[..., j : j + 1].sqrt()
        columns.append(torch.where(rows > j, v / d, torch.where(rows == j, d, torch.zeros_like(v))))
    if not columns:
        return A.clone()  # 0 x 0 matrices
    return torch.stack(columns, -1)
