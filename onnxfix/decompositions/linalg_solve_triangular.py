import torch


def _onnx_linalg_solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    # Forward substitution (lower) or back substitution (upper), unrolled over the (static)
    # matrix size n; batch dimensions may be dynamic and broadcast as in torch. Like torch it
    # reads only the triangle `upper` names (and not the diagonal when unitriangular=True).
    # A zero on the diagonal gives inf/NaN (as LAPACK's trtrs, torch does not check it).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
    if not left:
        # X A = B  <=>  A^T X^T = B^T, and A^T has the other triangle
        return _onnx_linalg_solve_triangular(A.transpose(-2, -1), B.transpose(-2, -1), upper=not upper, unitriangular=unitriangular).transpose(-2, -1)
    n = A.shape[-1]
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    dtype = torch.promote_types(A.dtype, B.dtype)
    A = A.to(dtype).expand(*batch, n, n)
    B = B.to(dtype).expand(*batch, n, B.shape[-1])
    solved = {}  # row index -> solution row, shape (..., 1, k)
    for i in reversed(range(n)) if upper else range(n):  # noqa: ONX603 - unrolled on purpose: n is static
        row = B[..., i : i + 1, :]
        for k, x in solved.items():  # noqa: ONX603 - unrolled: the rows already solved
            row = row - A[..., i : i + 1, k : k + 1] * x
        solved[i] = row if unitriangular else row / A[..., i : i + 1, i : i + 1]
    if n == 0:
        return B.clone()
    return torch.cat([solved[i] for i in range(n)], -2)  # noqa: ONX603 - static n
