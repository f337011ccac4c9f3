import torch


def _onnx_rot90(input, k=1, dims=(0, 1)):
    # torch's own definition: a flip of one dimension and a transpose (k = 1 or 3), a flip of
    # both (k = 2), a copy (k = 0), for k modulo 4.
    k = k % 4
    if k == 1:
        return input.flip(dims[1]).transpose(dims[0], dims[1])
    if k == 2:
        return input.flip(dims)
    if k == 3:
        return input.flip(dims[0]).transpose(dims[0], dims[1])
    return input.clone()
