import torch


def _onnx_nanmedian(input, dim=None, keepdim=False):
    # torch.nanmedian: the lower median of the non-NaN values (NaN if all are NaN). Without
    # `dim`, over all elements (a 0-d tensor, no index). Requires _onnx_sort_rank.
    if dim is None:
        return _onnx_nanmedian(input.reshape(-1), 0).values
    if input.dim() == 0:
        return torch.return_types.nanmedian((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    rank = _onnx_sort_rank(x)  # NaN ranks after every number
    count = (~torch.isnan(x)).sum(-1, keepdim=True) if x.is_floating_point() else torch.full_like(rank[..., :1], x.shape[-1])
    middle = torch.div((count - 1).clamp(min=0), 2, rounding_mode="trunc")
    index = (rank == middle).to(torch.int64).argmax(-1, keepdim=True)
    values = torch.gather(x, -1, index).movedim(last, dim)
    index = index.movedim(last, dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return torch.return_types.nanmedian((values, index))
