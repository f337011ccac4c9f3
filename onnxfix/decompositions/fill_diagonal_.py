import torch


def _onnx_fill_diagonal_(input, fill_value, wrap=False):
    # Tensor.fill_diagonal_ (in place; returns input), which neither exporter translates: the
    # positions whose indices are all equal as a mask, written with masked_fill_ (in place too).
    # wrap=True on a tall matrix continues every width + 1 flat positions, as ATen does on a
    # contiguous one. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return input.fill_diagonal_(fill_value, wrap)
    if input.dim() == 2 and wrap:
        rows, cols = input.shape
        flat = torch.arange(rows * cols, device=input.device).reshape(rows, cols)
        return input.masked_fill_(flat % (cols + 1) == 0, fill_value)
    first = torch.arange(input.shape[0], device=input.device)
    mask = None
    for dim in range(1, input.dim()):
        shape = [1] * input.dim()
        shape[dim] = input.shape[dim]
        same = first.reshape([-1] + [1] * (input.dim() - 1)) == torch.arange(input.shape[dim], device=input.device).reshape(shape)
        mask = same if mask is None else mask & same
    return input.masked_fill_(mask, fill_value)
