import torch


def _onnx_cummin(input, dim):
    # (values, indices) like torch.cummin: the running minimum and the index of its last
    # occurrence; a NaN, once seen, is the minimum (its latest index). O(n^2) memory along dim.
    x = input
    if x.dim() == 0:
        return torch.return_types.cummin((x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)))
    dim = dim % x.dim()
    if x.shape[dim] == 0:
        return torch.return_types.cummin((x.clone(), torch.zeros(x.shape, dtype=torch.int64, device=x.device)))
    last = x.dim() - 1
    steps = torch.arange(x.shape[dim], device=x.device)
    seen = steps.unsqueeze(0) <= steps.unsqueeze(1)  # (i, j): j <= i
    xt = x.movedim(dim, last).unsqueeze(-2)  # (..., 1, n)
    if x.is_floating_point():
        nan = torch.isnan(xt)
        highest = torch.full((), float("inf"), dtype=x.dtype, device=x.device)
    else:
        nan = torch.zeros_like(xt, dtype=torch.bool)
        highest = torch.full((), torch.iinfo(x.dtype).max if x.dtype != torch.bool else 1, dtype=x.dtype, device=x.device)
    best = torch.where(seen & ~nan, xt, highest).amin(-1, keepdim=True)  # (..., n, 1)
    any_nan = (seen & nan).any(-1, keepdim=True)
    hit = ((any_nan & nan) | (~any_nan & (xt == best))) & seen
    index = torch.where(hit, steps, -1).amax(-1)
    values = torch.gather(x.movedim(dim, last), -1, index)
    # contiguous, as ATen allocates them: a later reduction of another layout may round otherwise
    return torch.return_types.cummin((values.movedim(last, dim).contiguous(), index.movedim(last, dim).contiguous()))
