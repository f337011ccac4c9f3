import torch


def _onnx_linalg_slogdet(A):
    # LU elimination with partial pivoting (as LAPACK's getrf), unrolled over the (static)
    # matrix size n; batch dimensions may be dynamic. det = parity(P) * prod(diag U): the sign
    # multiplies the signs of the pivots and -1 per row swap, logabsdet sums log|pivot|. A
    # singular matrix gives sign 0 and logabsdet -inf, as torch.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.slogdet(A)
    n = A.shape[-1]
    rows = torch.arange(n, device=A.device)
    M = A
    sign = torch.ones(A.shape[:-2], dtype=A.dtype, device=A.device)
    logabsdet = torch.zeros(A.shape[:-2], dtype=A.dtype, device=A.device)
    for k in range(n):  # noqa: ONX603 - unrolled on purpose: n is the static matrix size
        candidates = torch.where(rows >= k, M[..., :, k].abs(), torch.full((), -1.0, dtype=M.dtype))
        pivot_row = candidates.argmax(-1, keepdim=True)  # first largest |value|, like idamax
        perm = torch.where(rows == k, pivot_row, torch.where(rows == pivot_row, k, rows))
        M = torch.gather(M, -2, perm.unsqueeze(-1).expand(M.shape))
        pivot = M[..., k, k]
        swapped = pivot_row.squeeze(-1) != k
        sign = sign * torch.where(swapped, -torch.ones_like(sign), torch.ones_like(sign)) * pivot.sign()
        logabsdet = logabsdet + pivot.abs().log()
        # a zero pivot means a singular matrix (sign is already 0): divide by 1 instead so the
        # remaining steps stay finite and logabsdet stays -inf rather than NaN
        safe = torch.where(pivot == 0, torch.ones_like(pivot), pivot)
        factors = torch.where(rows > k, M[..., :, k] / safe.unsqueeze(-1), torch.zeros_like(M[..., :, k]))
        M = M - factors.unsqueeze(-1) * M[..., k : k + 1, :]
    return torch.return_types.linalg_slogdet((sign, logabsdet))  # .sign, .logabsdet as torch
