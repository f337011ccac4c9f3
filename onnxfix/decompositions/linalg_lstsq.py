import torch


def _onnx_linalg_lstsq(A, B):
    # Least squares for A of full rank (static m x n; batch dimensions may be dynamic), through
    # Householder QR: m >= n solves R x = Q^T B; m < n gives the minimum-norm solution from the
    # QR of A^T (x = Q R^-T B), which is what torch's default drivers return for full rank. The
    # other fields are those of torch's default CPU driver (gelsy) for a full-rank A: empty
    # residuals and singular values, rank = min(m, n). A rank-deficient A gives inf/NaN or
    # another solution where torch's rank-revealing driver gives the minimum-norm one.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.lstsq(A, B)
    m, n = A.shape[-2], A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    if vector:
        B = B.unsqueeze(-1)
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    dtype = torch.promote_types(A.dtype, B.dtype)
    A = A.to(dtype).expand(*batch, m, n)
    B = B.to(dtype).expand(*batch, m, B.shape[-1])
    if m >= n:
        Q, R = _onnx_linalg_qr(A)
        X = _onnx_linalg_solve_triangular(R, Q.transpose(-2, -1) @ B, upper=True)
    else:
        Q, R = _onnx_linalg_qr(A.transpose(-2, -1))
        X = Q @ _onnx_linalg_solve_triangular(R.transpose(-2, -1), B, upper=False)
    empty = torch.empty(0, dtype=dtype, device=A.device)
    rank = torch.full(batch, min(m, n), dtype=torch.int64, device=A.device)
    return torch.return_types.linalg_lstsq((X.squeeze(-1) if vector else X, empty, rank, empty))
