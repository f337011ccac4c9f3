import torch


def _onnx_unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    # Keep an element (a slice along `dim`) where it differs from its predecessor (`!=`, so each
    # NaN starts a new group, as torch), then select the kept ones by boolean indexing, which
    # both exporters translate; aten.unique_consecutive has no translation in either.
    if dim is not None:
        dim = dim % max(input.dim(), 1)  # legacy exports movedim(-1, 0) as an invalid Transpose
    values = input.reshape(-1) if dim is None else input.movedim(dim, 0) if dim else input
    changed = values[1:] != values[:-1]
    if changed.dim() > 1:
        changed = changed.flatten(1).any(1)
    first = torch.ones(1, dtype=torch.bool, device=input.device)[: values.shape[0]]
    keep = torch.cat([first, changed])
    output = values[keep].movedim(0, dim) if dim else values[keep]
    results = [output]
    if return_inverse:
        inverse = torch.cumsum(keep.to(torch.int64), 0) - 1
        results.append(inverse.reshape(input.shape) if dim is None else inverse)
    if return_counts:
        starts = torch.arange(values.shape[0], device=input.device)[keep]
        ends = torch.cat([starts[1:], torch.full((1,), values.shape[0], device=input.device)])
        results.append(ends - starts)
    return tuple(results) if len(results) > 1 else output
