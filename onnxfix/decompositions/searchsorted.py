import torch


def _onnx_searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    # Count, for each value, the sorted elements it goes after (torch's binary search moves
    # right while not (element >= value), or not (element > value) for right=True; so a NaN
    # value lands at the end). O(n) memory per value. NaN inside sorted_sequence is undefined
    # in torch (its result depends on the search path) and may differ.
    sequence = sorted_sequence if sorter is None else torch.gather(sorted_sequence, -1, sorter)
    values = input if isinstance(input, torch.Tensor) else torch.tensor(input, dtype=sequence.dtype, device=sequence.device)
    if side is not None:
        right = side == "right"
    if sequence.dim() > 1:
        sequence = sequence.unsqueeze(-2)
    column = values.unsqueeze(-1)
    goes_after = ~(sequence > column) if right else ~(sequence >= column)
    return goes_after.sum(-1).to(torch.int32 if out_int32 else torch.int64)
