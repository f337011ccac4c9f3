import torch


def _onnx_index_put_rows(input, indices, values, accumulate=False):
    # index_put with integer index tensors on the leading dimensions, written with exportable ops:
    # the indices are broadcast, made non-negative and flattened into one row index of input
    # viewed as (rows, *rest); then scatter_add (accumulate=True: duplicates summed) or scatter
    # (last write wins in torch only for unique indices, as index_put). Boolean masks (which
    # cannot repeat) run the op.
    if any(i is None or i.dtype in (torch.bool, torch.uint8) for i in indices):
        return input.index_put(indices, values, accumulate)  # masks: no duplicates possible
    k = len(indices)
    lead, rest = input.shape[:k], input.shape[k:]
    index = torch.broadcast_tensors(*indices)
    flat = torch.zeros(index[0].shape, dtype=torch.int64, device=input.device)
    for position in range(k):  # noqa: ONX603 - one step per index tensor given (static)
        i = index[position].to(torch.int64)
        i = torch.where(i < 0, i + lead[position], i)
        flat = flat * lead[position] + i
    flat = flat.reshape(-1)
    rows = input.reshape((-1,) + tuple(rest))
    source = values.to(input.dtype).expand(tuple(index[0].shape) + tuple(rest)).reshape((-1,) + tuple(rest))
    target = flat.reshape((-1,) + (1,) * len(rest)).expand(source.shape)
    if accumulate:
        return rows.scatter_add(0, target, source).reshape(input.shape)
    return rows.scatter(0, target, source).reshape(input.shape)
