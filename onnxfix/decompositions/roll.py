import torch


def _onnx_roll(input, shifts, dims=None):
    # torch.roll as a gather: along a dimension of size n, output index i reads input index
    # (i - shift) mod n (floor modulo, as torch.roll), from torch.arange(n). Exact (it moves
    # data), and a shift computed from sizes stays a graph value (torch.roll's export needs it
    # constant). dims=None rolls the flattened tensor, as torch.roll.
    if dims is None:
        return _onnx_roll(input.flatten(), shifts, 0).view(input.shape)
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    for shift, dim in zip(shifts, dims):  # noqa: ONX603 - over the (static) rolled dimensions
        n = input.shape[dim]
        index = torch.arange(n, device=input.device) - shift
        index = index - torch.div(index, n, rounding_mode="floor") * n
        input = input.index_select(dim, index)
    return input
