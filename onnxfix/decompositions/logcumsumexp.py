import torch


def _onnx_logcumsumexp(input, dim):
    # Row i of an (n, n) lower-triangular mask keeps x[0..i] (-inf elsewhere); logsumexp over
    # the last axis gives the running log-sum-exp. O(n^2) memory along `dim`; sizes may be
    # dynamic. ATen accumulates sequentially, so the rounding differs slightly.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.logcumsumexp(input, dim)
    if input.dim() == 0:
        return input.clone()
    dim = dim % input.dim()
    last = input.dim() - 1
    steps = torch.arange(input.shape[dim], device=input.device)
    keep = steps.unsqueeze(0) <= steps.unsqueeze(1)
    rows = torch.where(keep, input.movedim(dim, last).unsqueeze(-2), torch.full((), -float("inf"), dtype=input.dtype, device=input.device))
    return torch.logsumexp(rows, -1).movedim(last, dim)
