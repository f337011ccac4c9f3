import torch


def _onnx_kthvalue(input, k, dim=-1, keepdim=False):
    # The k-th smallest element (NaN counts as the largest) and its index (requires
    # _onnx_sort_rank). With ties, the index is one of the tied positions, as torch documents.
    if input.dim() == 0:
        return torch.return_types.kthvalue((input.clone(), torch.zeros((), dtype=torch.int64, device=input.device)))
    dim = dim % input.dim()
    last = input.dim() - 1
    x = input.movedim(dim, last)
    index = (_onnx_sort_rank(x) == k - 1).to(torch.int64).argmax(-1, keepdim=True)
    values = torch.gather(x, -1, index).movedim(last, dim)
    index = index.movedim(last, dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return torch.return_types.kthvalue((values, index))
