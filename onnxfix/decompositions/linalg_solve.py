import torch


def _onnx_linalg_solve(A, B, *, left=True):
    # Gauss-Jordan elimination with partial pivoting on [A | B], unrolled over the (static)
    # matrix size n; batch dimensions may be dynamic. Matches torch.linalg.solve to rounding for
    # non-singular A; a singular A gives inf/nan where torch raises.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.solve(A, B, left=left)
    if not left:
        # transpose(-2, -1), not .mT: the legacy exporter has no translation for aten::mT
        return _onnx_linalg_solve(A.transpose(-2, -1), B.transpose(-2, -1)).transpose(-2, -1)
    n = A.shape[-1]
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    if vector:
        B = B.unsqueeze(-1)
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    dtype = torch.promote_types(A.dtype, B.dtype)
    M = torch.cat([A.to(dtype).expand(*batch, n, n), B.to(dtype).expand(*batch, n, B.shape[-1])], -1)
    rows = torch.arange(n, device=A.device)
    for k in range(n):  # noqa: ONX603 - unrolled on purpose: n is the static matrix size
        candidates = torch.where(rows >= k, M[..., :, k].abs(), torch.full((), -1.0, dtype=M.dtype))
        pivot_row = candidates.argmax(-1, keepdim=True)
        perm = torch.where(rows == k, pivot_row, torch.where(rows == pivot_row, k, rows))
        M = torch.gather(M, -2, perm.unsqueeze(-1).expand(M.shape))
        row = M[..., k : k + 1, :] / M[..., k : k + 1, k : k + 1]
        M = torch.where((rows == k).unsqueeze(-1), row, M - M[..., :, k : k + 1] * row)
    X = M[..., n:]
    return X.squeeze(-1) if vector else X
