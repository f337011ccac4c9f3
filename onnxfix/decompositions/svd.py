import torch


def _onnx_svd(input, some=True, compute_uv=True):
    # torch.svd's conventions on top of _onnx_linalg_svd: it returns V, not Vh (V = Vh^H), some=True
    # is full_matrices=False, and compute_uv=False gives zero-filled U (m x m) and V (n x n).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.svd(input, some, compute_uv)
    U, S, Vh = _onnx_linalg_svd(input, not some)
    if not compute_uv:
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        return torch.return_types.svd((input.new_zeros(batch + (m, m)), S, input.new_zeros(batch + (n, n))))
    return torch.return_types.svd((U, S, Vh.transpose(-2, -1)))  # real: V = Vh^T (legacy has no aten::mH)
