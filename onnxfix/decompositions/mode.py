import torch


def _onnx_mode(input, dim=-1, keepdim=False):
    # torch.mode: the most frequent value (the smallest one among equally frequent values) and
    # the index of its last occurrence. O(n^2) memory along `dim`. NaN counts as never equal,
    # so inputs with NaN may differ from eager (torch does not document NaN for mode).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.mode(input, dim, keepdim)
    if input.dim() == 0:
        return torch.return_types.mode((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    counts = (x.unsqueeze(-1) == x.unsqueeze(-2)).sum(-1)
    frequent = counts == counts.amax(-1, keepdim=True)
    if x.is_floating_point():
        highest = torch.full((), float("inf"), dtype=x.dtype, device=x.device)
    else:
        highest = torch.full((), torch.iinfo(x.dtype).max if x.dtype != torch.bool else 1, dtype=x.dtype, device=x.device)
    value = torch.where(frequent, x, highest).amin(-1, keepdim=True)
    steps = torch.arange(x.shape[-1], device=x.device)
    index = torch.where(x == value, steps, -1).amax(-1, keepdim=True)
    values = value.movedim(last, dim)
    index = index.movedim(last, dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return torch.return_types.mode((values, index))
