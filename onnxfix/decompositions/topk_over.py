import torch


def _onnx_topk_over(size, input, *args, **kwargs):
    # `torch.topk(input, k, ...)` in the branch `_onnx_size_over(size, k)` takes: in eager the op
    # itself (the branch runs only where size > k). While exporting, where the branch runs for every
    # size, the top k of the rows where the size is over k, else (k rows would not exist) all size
    # rows in their order with their own indices, as the code without the cut keeps them: topk and
    # that prefix both of min(size, k) rows, one picked by `size > k` as a tensor (an ONNX Where).
    if not (isinstance(size, torch.SymInt) or (isinstance(size, torch.Tensor) and torch.jit.is_tracing())):
        return torch.topk(input, *args, **kwargs)

    def arguments(k, dim=-1, largest=True, sorted=True):
        return k, dim, largest, sorted

    k, dim, largest, sorted = arguments(*args, **kwargs)
    dim = dim % input.dim()
    if dim != 0:  # the `if` tested the first dim's size: ranking another is not the cut it guards
        raise RuntimeError("ranking along a dim other than the first one the size test reads")
    if isinstance(size, torch.Tensor):
        kept = torch.minimum(size, torch.as_tensor(k))
        over = size > k
    else:
        kept = torch.sym_min(size, k)
        over = torch.scalar_tensor(size, dtype=torch.int64) > k  # torch.as_tensor would pin the size
    top = torch.topk(input, kept, dim, largest, sorted)
    order = torch.arange(kept, device=input.device)
    first = input.index_select(dim, order)
    order = order.view([-1 if d == dim else 1 for d in range(input.dim())]).expand_as(first)
    return torch.return_types.topk((torch.where(over, top.values, first), torch.where(over, top.indices, order)))
