import torch


def _onnx_scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    # ONNX ScatterElements has no "mean" reduction, and the dynamo exporter silently exports
    # reduce="mean" as a plain scatter (the last value wins). ATen computes the mean as a sum
    # scatter divided by a count scatter (count starts at 1 with include_self, else at 0, and
    # 0 becomes 1), with floor division for integer dtypes; this does the same with
    # scatter_add, which both exporters translate. Other reductions run unchanged, except
    # include_self=False (below).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.scatter_reduce(input, dim, index, src, reduce, include_self=include_self)
    # ScatterElements needs updates of the index's shape; torch uses that corner of `src` (the
    # exporters pass a larger src as it is: onnxruntime refuses it).
    src = src[tuple(slice(0, size) for size in index.shape)]
    if reduce != "mean" and (include_self or torch.compiler.is_exporting()):
        # dynamo (torch.export) translates include_self=False itself: only legacy needs the rewrite
        return input.scatter_reduce(dim, index, src, reduce, include_self=include_self)
    if reduce != "mean":
        # The legacy exporter refuses include_self=False for every reduction. As ATen does, the
        # positions that receive a value start from the reduction's identity (0, 1, the lowest or
        # the highest value), then include the values: the others keep self.
        hit = torch.zeros_like(input, dtype=torch.bool).scatter(dim, index, torch.ones(index.shape, dtype=torch.bool, device=input.device))
        if input.is_floating_point():
            lowest, highest = -float("inf"), float("inf")
        elif input.dtype == torch.bool:
            lowest, highest = False, True
        else:
            lowest, highest = torch.iinfo(input.dtype).min, torch.iinfo(input.dtype).max
        identity = {"sum": 0, "prod": 1, "amax": lowest, "amin": highest}[reduce]
        start = torch.where(hit, torch.full((), identity, dtype=input.dtype, device=input.device), input)
        return start.scatter_reduce(dim, index, src, reduce, include_self=True)
    ones = torch.ones(index.shape, dtype=input.dtype, device=input.device)
    if include_self:
        total = input.scatter_add(dim, index, src)
        count = torch.ones_like(input).scatter_add(dim, index, ones)
    else:
        # Positions that receive a value start from 0 (self is left out); the others keep self
        # (their count stays 0 -> 1 below, and self / 1 is self).
        count = torch.zeros_like(input).scatter_add(dim, index, ones)
        total = torch.where(count > 0, torch.zeros_like(input), input).scatter_add(dim, index, src)
    count = torch.where(count == 0, torch.ones_like(count), count)
    if input.is_floating_point() or input.is_complex():
        return total / count
    return torch.div(total, count, rounding_mode="floor")
