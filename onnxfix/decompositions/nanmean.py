import torch


def _onnx_nanmean(input, dim=None, keepdim=False, *, dtype=None):
    # As ATen: nansum / the number of non-NaN values (NaN where all are NaN: 0 / 0).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nanmean(input, dim, keepdim, dtype=dtype)
    if dim is None:
        dim = list(range(input.dim()))
    present = ~input.isnan()
    total = torch.sum(torch.where(present, input, torch.zeros((), dtype=input.dtype, device=input.device)), dim, keepdim, dtype=dtype)
    return total / present.sum(dim, keepdim)
