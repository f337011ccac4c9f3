import torch


def _onnx_linalg_qr(A, mode="reduced"):
    # Householder QR as LAPACK's geqr2/org2r, unrolled over min(m, n) (static sizes; batch
    # dimensions may be dynamic). It follows dlarfg's sign convention (R[j, j] = -sign(alpha) *
    # norm, and no reflection when the column below the diagonal is already zero), so Q and R
    # have the signs torch gives, up to rounding.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.linalg.qr(A, mode)
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    rows = torch.arange(m, device=A.device)
    R = A
    reflectors = []
    for j in range(k):  # noqa: ONX603 - unrolled on purpose: min(m, n) is static
        x = torch.where(rows >= j, R[..., :, j], torch.zeros_like(R[..., :, j]))
        alpha = x[..., j : j + 1]
        below = torch.where(rows > j, x, torch.zeros_like(x))
        xnorm = below.square().sum(-1, keepdim=True).sqrt()
        norm = (alpha.square() + xnorm.square()).sqrt()
        beta = torch.where(alpha >= 0, -norm, norm)
        reflect = xnorm != 0
        safe_beta = torch.where(reflect, beta, torch.ones_like(beta))
        tau = torch.where(reflect, (beta - alpha) / safe_beta, torch.zeros_like(beta))
        scale = torch.where(reflect, alpha - beta, torch.ones_like(beta))
        v = torch.where(rows == j, torch.ones_like(x), below / scale)  # v[j] = 1, zeros above
        # R <- (I - tau v v^T) R; column j becomes beta e_j exactly
        R = R - tau.unsqueeze(-1) * v.unsqueeze(-1) * (v.unsqueeze(-1) * R).sum(-2, keepdim=True)
        column = torch.where(rows == j, torch.where(reflect, beta, alpha), torch.where(rows < j, R[..., :, j], torch.zeros_like(x)))
        R = torch.cat([R[..., :, :j], column.unsqueeze(-1), R[..., :, j + 1 :]], -1)
        reflectors.append((v, tau))
    if mode == "r":
        return torch.return_types.linalg_qr((torch.empty(0, dtype=A.dtype, device=A.device), R[..., :k, :]))
    columns = m if mode == "complete" else k
    Q = torch.eye(m, columns, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, columns)
    for v, tau in reversed(reflectors):  # noqa: ONX603 - unrolled: Q = H_1 ... H_k applied to I
        Q = Q - tau.unsqueeze(-1) * v.unsqueeze(-1) * (v.unsqueeze(-1) * Q).sum(-2, keepdim=True)
    return torch.return_types.linalg_qr((Q, R[..., :columns, :]))  # .Q, .R as torch
