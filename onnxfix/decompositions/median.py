import torch


def _onnx_median(input, dim=None, keepdim=False):
    # torch.median: the lower median; NaN if the reduced values contain NaN (index: the first
    # NaN). Without `dim`, the median of all elements (a 0-d tensor, no index). Requires
    # _onnx_sort_rank. With ties, the index is one of the tied positions, as torch documents.
    if dim is None:
        flat = input.reshape(-1)
        return _onnx_median(flat, 0).values
    if input.dim() == 0:
        return torch.return_types.median((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    middle = (x.shape[-1] - 1) // 2
    index = (_onnx_sort_rank(x) == middle).to(torch.int64).argmax(-1, keepdim=True)
    if x.is_floating_point():
        nan = torch.isnan(x)
        first_nan = nan.to(torch.int64).argmax(-1, keepdim=True)
        index = torch.where(nan.any(-1, keepdim=True), first_nan, index)
    values = torch.gather(x, -1, index).movedim(last, dim)
    index = index.movedim(last, dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return torch.return_types.median((values, index))
