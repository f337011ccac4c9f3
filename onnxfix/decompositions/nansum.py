import torch


def _onnx_nansum(input, dim=None, keepdim=False, *, dtype=None):
    # NaN counts as 0; the sum is torch.sum's (same order of additions).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nansum(input, dim, keepdim, dtype=dtype)
    x = torch.where(input.isnan(), torch.zeros((), dtype=input.dtype, device=input.device), input) if input.is_floating_point() else input
    if dim is None:
        dim = list(range(input.dim()))
    return torch.sum(x, dim, keepdim, dtype=dtype)
