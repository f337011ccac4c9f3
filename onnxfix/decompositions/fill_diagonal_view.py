import torch


def _onnx_fill_diagonal_view(input, value, offset=0, dim1=0, dim2=1):
    # `input.diagonal(offset, dim1, dim2).fill_(value)` (or `.copy_(value)`, torchtune's causal
    # mask `mask.diagonal(dim1=1, dim2=2).copy_(True)`) as a masked fill of the tensor itself: the
    # legacy exporter makes the diagonal view a copy (the write is lost) and the dynamo exporter
    # cannot copy a Python number. The mask is True where the index along dim2 minus the one
    # along dim1 is the offset: the diagonal's elements, written in place with the same value.
    input.diagonal(offset, dim1, dim2)  # the view's own checks: dims in range and distinct, an int offset
    rank = input.dim()
    first, second = dim1 % rank, dim2 % rank
    rows = torch.arange(input.shape[first], device=input.device)
    cols = torch.arange(input.shape[second], device=input.device)
    mask = cols[None, :] - rows[:, None] == offset
    if first > second:
        mask = mask.t()
    mask = mask.view([input.shape[d] if d in (first, second) else 1 for d in range(rank)])
    if input.dtype == torch.bool:  # onnxruntime has no bool Where: set (or clear) the bits instead
        return input.bitwise_or_(mask) if value else input.bitwise_and_(~mask)
    # a Python bool as the value: its int (the same number in any other dtype), which the legacy
    # exporter's masked_fill_ takes
    return input.masked_fill_(mask, int(value) if isinstance(value, bool) else value)
