import torch


def _onnx_narrow(input, dim, start, length):
    # With a tensor `start` the output size is static but torch.export reads start's value
    # (an unbacked symbol) and fails; index_select with start + arange(length) takes the same
    # slice. A negative start counts from the end, as torch.narrow.
    if not isinstance(start, torch.Tensor):
        return input.narrow(dim, start, length)
    size = input.shape[dim]
    start = torch.where(start < 0, start + size, start)
    index = start.reshape(()).to(torch.int64) + torch.arange(length, device=input.device)
    return input.index_select(dim, index)
