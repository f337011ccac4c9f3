import torch


def _onnx_scatter(input, dim, index, src=None, *, value=None, reduce=None):
    # torch.scatter with reduce="add" / "multiply" is scatter_reduce("sum" / "prod",
    # include_self=True) on the part of `src` that `index` covers; a number is broadcast.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return (input.scatter(dim, index, value if src is None else src)
                if reduce is None else input.scatter(dim, index, value if src is None else src, reduce=reduce))
    if src is None:
        src = value
    if not isinstance(src, torch.Tensor):
        src = torch.full(index.shape, src, dtype=input.dtype, device=input.device)
    else:
        src = src[tuple(slice(0, size) for size in index.shape)]
    if reduce is None:
        return input.scatter(dim, index, src)
    mode = {"add": "sum", "multiply": "prod"}[reduce]
    return input.scatter_reduce(dim, index, src, mode, include_self=True)
