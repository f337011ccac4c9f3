import torch


def _onnx_index_add(input, dim, index, source, *, alpha=1):
    # input[..., index[i], ...] += alpha * source[..., i, ...] along `dim`, duplicates summed:
    # a scatter_add with the index broadcast over the other dimensions of `source` (the legacy
    # exporter refuses index_add with duplicate indices).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.index_add(input, dim, index, source, alpha=alpha)
    dim = dim % max(input.dim(), 1)
    if alpha != 1:
        source = source * alpha
    if input.dim() == 0:
        return input + source.sum()
    shape = [1] * source.dim()
    shape[dim] = -1
    return input.scatter_add(dim, index.reshape(shape).expand(source.shape), source)
