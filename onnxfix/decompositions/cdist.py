import torch


def _onnx_cdist(x1, x2, p=2.0, compute_mode=None):
    # Pairwise p-norm distances by broadcasting (..., P, 1, M) - (..., 1, R, M): O(P*R*M)
    # memory. `p` must be a Python number. For p=2, eager cdist may use a matrix-multiply
    # formula on large inputs; the two agree to float rounding.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.cdist(x1, x2, p) if compute_mode is None else torch.cdist(x1, x2, p, compute_mode)
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).sum(-1).to(diff.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return diff.pow(2).sum(-1).sqrt()
    if p == float("inf"):
        return diff.amax(-1)
    return diff.pow(p).sum(-1).pow(1.0 / p)
