import torch


def _onnx_count_nonzero(input, dim=None):
    # (x != 0).sum over `dim` (all dimensions when None), an int64 count as torch.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.count_nonzero(input, dim)
    if dim is None:
        dim = list(range(input.dim()))
    return (input != 0).sum(dim)
