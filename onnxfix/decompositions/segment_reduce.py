import torch


def _onnx_segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False,
                         initial=None):
    # torch.segment_reduce (PyG's / torch_scatter's segment_csr: PTv3's serialized pooling), which
    # neither exporter translates. While exporting, 1-D segments along dim 0: each row's segment is
    # the number of segment ends at or before it (a scatter of ones at the ends, summed cumulatively),
    # and the rows are scatter-reduced into tensors starting at `initial` or at the reduction's
    # identity (include_self: what ATen does, empty segments keep the start); a mean is the sum
    # divided by the length, NaN for an empty segment without `initial`, as ATen.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.segment_reduce(data, reduce, lengths=lengths, indices=indices, offsets=offsets, axis=axis,
                                    unsafe=unsafe, initial=initial)
    if axis % data.dim() != 0 or indices is not None or (lengths if offsets is None else offsets).dim() != 1:
        # batched segments: left to the op
        return torch.segment_reduce(data, reduce, lengths=lengths, indices=indices, offsets=offsets, axis=axis,
                                    unsafe=unsafe, initial=initial)
    if offsets is None:
        offsets = torch.cat([lengths.new_zeros(1), lengths.cumsum(0)])
    lengths = offsets[1:] - offsets[:-1]
    # row r is in segment k where offsets[k] <= r < offsets[k + 1], so k + 1 offsets are at or before
    # it: rows before offsets[0] count 0 and rows from offsets[-1] on count len(offsets); both extra
    # slots are sliced off the result (ATen ignores those rows)
    marks = torch.zeros(data.shape[0] + 1, dtype=offsets.dtype, device=data.device).scatter_add(
        0, offsets.clamp(max=data.shape[0]), torch.ones_like(offsets))
    rows = marks.cumsum(0)[: data.shape[0]]
    index = rows.view(-1, *([1] * (data.dim() - 1))).expand_as(data)
    # ATen reduces floating data only ("_segment_reduce_cpu" not implemented for integers)
    identity = {"sum": 0, "mean": 0, "prod": 1, "max": -float("inf"), "min": float("inf")}[reduce]
    start = data.new_full((offsets.shape[0] + 1, *data.shape[1:]), identity if initial is None else initial)
    if reduce != "mean":
        kind = {"sum": "sum", "prod": "prod", "max": "amax", "min": "amin"}[reduce]
        return start.scatter_reduce(0, index, data, kind, include_self=True)[1:-1]
    total = start.scatter_add(0, index, data)[1:-1]
    count = lengths.view(-1, *([1] * (data.dim() - 1))).to(total.dtype)
    empty = total if initial is not None else torch.full_like(total, float("nan"))
    return torch.where(count > 0, total / count.clamp(min=1), empty)
