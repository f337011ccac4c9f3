import torch


def _onnx_index_reduce(input, dim, index, source, reduce, *, include_self=True):
    # index_reduce(dim, index, source) is scatter_reduce with the 1-D index repeated over
    # source's other dimensions (ScatterElements exists in ONNX, index_reduce does not).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return input.index_reduce(dim, index, source, reduce, include_self=include_self)
    dim = dim % max(input.dim(), 1)
    shape = [1] * source.dim()
    if source.dim() > 0:
        shape[dim] = -1
    expanded = index.reshape(shape).expand(source.shape)
    if reduce == "mean":
        return _onnx_scatter_reduce(input, dim, expanded, source, "mean", include_self=include_self)
    if not include_self:
        # Positions that receive a value start from the reduction's identity instead of self
        # (the legacy exporter cannot express include_self=False).
        hit = torch.zeros_like(input, dtype=torch.int64).scatter_add(dim, expanded, torch.ones_like(expanded))
        if reduce == "prod":
            start = 1
        elif input.is_floating_point():
            start = float("-inf") if reduce == "amax" else float("inf")
        else:
            limits = torch.iinfo(input.dtype)
            start = limits.min if reduce == "amax" else limits.max
        input = torch.where(hit > 0, torch.full_like(input, start), input)
    return input.scatter_reduce(dim, expanded, source, reduce, include_self=True)
