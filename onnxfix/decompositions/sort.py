import torch


def _onnx_sort(input, dim=-1, descending=False, *, stable=True):
    # torch.sort with stable=True: ties keep their input order (requires _onnx_sort_rank).
    if input.dim() == 0:
        return torch.return_types.sort((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    rank = _onnx_sort_rank(x, descending)
    steps = torch.arange(x.shape[-1], device=x.device).expand(rank.shape)
    indices = torch.zeros_like(rank).scatter(-1, rank, steps)
    values = torch.gather(x, -1, indices)
    values, indices = values.movedim(last, dim), indices.movedim(last, dim)
    if not torch.onnx.is_in_onnx_export():  # laid out as torch.sort's (the input's strides when dense):
        # the same values in another layout can round otherwise in a later reduction
        values, indices = torch.empty_like(input).copy_(values), torch.empty_like(input, dtype=torch.int64).copy_(indices)
    return torch.return_types.sort((values, indices))
