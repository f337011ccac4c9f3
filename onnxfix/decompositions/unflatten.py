import torch


def _onnx_unflatten(input, dim, sizes):
    # a view of the sizes spliced into the shape, which is what ATen's unflatten is; the legacy
    # exporter's unflatten keeps its result's traced shape, so sizes read from it later are constants.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.unflatten(input, dim, sizes)
    dim = dim % input.dim()
    return input.view(*input.shape[:dim], *sizes, *input.shape[dim + 1:])
