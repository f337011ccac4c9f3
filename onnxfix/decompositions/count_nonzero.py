import torch


def _onnx_count_nonzero(input, dim=None):
    # (x != 0).sum over `dim` (all dimensions when None), an int64 count as torch.
    if dim is None:
        dim = list(range(input.dim()))
    return (input != 0).sum(dim)
