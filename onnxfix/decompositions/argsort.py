import torch


def _onnx_argsort(input, dim=-1, descending=False, *, stable=True):
    # torch.argsort with stable=True: ties keep their input order (requires _onnx_sort_rank).
    if input.dim() == 0:
        return torch.zeros((), dtype=torch.int64, device=input.device)
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    rank = _onnx_sort_rank(x, descending)
    steps = torch.arange(x.shape[-1], device=x.device).expand(rank.shape)
    indices = torch.zeros_like(rank).scatter(-1, rank, steps).movedim(last, dim)
    if not torch.onnx.is_in_onnx_export():  # laid out as torch.argsort's (the input's strides when dense)
        indices = torch.empty_like(input, dtype=torch.int64).copy_(indices)
    return indices
