import torch


def _onnx_linalg_inv(A):
    # Gauss-Jordan elimination with partial pivoting on [A | I], unrolled over the (static)
    # matrix size n; batch dimensions may be dynamic. Matches torch.linalg.inv to rounding for
    # non-singular A; a singular A gives inf/nan where torch raises.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.inv(A)
    n = A.shape[-1]
    eye = torch.eye(n, dtype=A.dtype, device=A.device).expand(A.shape)
    M = torch.cat([A, eye], -1)
    rows = torch.arange(n, device=A.device)
    for k in range(n):  # noqa: ONX603 - unrolled on purpose: n is the static matrix size
        candidates = torch.where(rows >= k, M[..., :, k].abs(), torch.full((), -1.0, dtype=M.dtype))
        pivot_row = candidates.argmax(-1, keepdim=True)
        perm = torch.where(rows == k, pivot_row, torch.where(rows == pivot_row, k, rows))
        M = torch.gather(M, -2, perm.unsqueeze(-1).expand(M.shape))
        row = M[..., k : k + 1, :] / M[..., k : k + 1, k : k + 1]
        M = torch.where((rows == k).unsqueeze(-1), row, M - M[..., :, k : k + 1] * row)
    return M[..., n:]
