import torch


def _onnx_cumprod(input, dim, *, dtype=None):
    # Row i of an (n, n) lower-triangular mask keeps x[0..i] (ones elsewhere); prod over the
    # last axis gives the running products. O(n^2) memory along `dim`; sizes may be dynamic.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.cumprod(input, dim, dtype=dtype)
    x = input if dtype is None else input.to(dtype)
    if dtype is None and not (x.is_floating_point() or x.is_complex()):
        x = x.to(torch.int64)  # torch.cumprod promotes bool and integers to int64
    if x.dim() == 0:
        return x.clone()
    dim = dim % x.dim()
    last = x.dim() - 1
    steps = torch.arange(x.shape[dim], device=x.device)
    keep = steps.unsqueeze(0) <= steps.unsqueeze(1)
    rows = torch.where(keep, x.movedim(dim, last).unsqueeze(-2), torch.ones((), dtype=x.dtype, device=x.device))
    return rows.prod(-1).movedim(last, dim)
