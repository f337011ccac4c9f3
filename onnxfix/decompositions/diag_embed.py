import torch


def _onnx_diag_embed(input, offset=0, dim1=-2, dim2=-1):
    # An (m, m) identity mask selects input[..., j] at (j, j); zero padding of |offset| rows and
    # columns then moves that diagonal to `offset`. torch.where, not a product with the mask,
    # so that inf and NaN stay on the diagonal only.
    size = input.shape[-1]
    index = torch.arange(size, device=input.device)
    eye = index.unsqueeze(-1) == index
    square = input.unsqueeze(-2).expand(*input.shape[:-1], size, size)
    result = torch.where(eye, square, torch.zeros((), dtype=input.dtype, device=input.device))
    if offset > 0:  # above the main diagonal: columns on the left, rows at the bottom
        result = torch.nn.functional.pad(result, (offset, 0, 0, offset))
    elif offset < 0:
        result = torch.nn.functional.pad(result, (0, -offset, -offset, 0))
    rank = result.dim()
    dim1, dim2 = dim1 % rank, dim2 % rank
    if (dim1, dim2) != (rank - 2, rank - 1):  # put the two new dimensions at dim1 and dim2
        others = iter(range(rank - 2))
        order = [rank - 2 if d == dim1 else rank - 1 if d == dim2 else next(others)
                 for d in range(rank)]  # noqa: ONX603 - over the number of dimensions
        result = result.permute(order)
    return result.contiguous()  # as ATen allocates it: another layout can round otherwise downstream
