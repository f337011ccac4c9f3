import torch


def _onnx_sort_over(size, k, input, *args, **kwargs):
    # `torch.sort(input, ...)` in the branch `_onnx_size_over(size, k)` takes, whose slices then keep
    # the first k: in eager the op itself (the branch runs only where size > k). While exporting,
    # where the branch runs for every size, the sorted rows where the size is over k, else the rows
    # in their order with their own indices, as the code without the cut keeps them (a slice to k
    # of at most k rows keeps them all), picked by `size > k` as a tensor (an ONNX Where).
    if not (isinstance(size, torch.SymInt) or (isinstance(size, torch.Tensor) and torch.jit.is_tracing())):
        return torch.sort(input, *args, **kwargs)

    def arguments(dim=-1, descending=False, stable=False):
        return dim, descending, stable

    dim, descending, stable = arguments(*args, **kwargs)
    dim = dim % input.dim()
    if dim != 0:  # the `if` tested the first dim's size: ranking another is not the cut it guards
        raise RuntimeError("ranking along a dim other than the first one the size test reads")
    if stable:
        ranked = torch.sort(input, dim=dim, descending=descending, stable=True)
    else:
        ranked = torch.sort(input, dim, descending)
    if isinstance(size, torch.Tensor):
        over = size > k
    else:
        over = torch.scalar_tensor(size, dtype=torch.int64) > k  # torch.as_tensor would pin the size
    order = torch.arange(input.shape[dim], device=input.device)
    order = order.view([-1 if d == dim else 1 for d in range(input.dim())]).expand_as(input)
    return torch.return_types.sort((torch.where(over, ranked.values, input), torch.where(over, ranked.indices, order)))
