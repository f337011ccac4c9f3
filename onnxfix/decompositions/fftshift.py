import torch


def _onnx_fftshift(input, dim=None):
    # fftshift rolls each dimension by half its size (rounded down), so the last n // 2 entries
    # come first: two slices and a concatenation per dimension (exact; torch.roll with sizes
    # taken from the input does not export with the legacy exporter).
    if dim is None:
        dim = tuple(range(input.dim()))
    elif isinstance(dim, int):
        dim = (dim,)
    for d in dim:  # noqa: ONX603 - over the (static) dimensions to shift
        d = d % input.dim()
        size = input.shape[d]
        before = (slice(None),) * d
        input = torch.cat((input[before + (slice(size - size // 2, None),)],
                           input[before + (slice(0, size - size // 2),)]), d)
    return input
