import torch


def _onnx_take_along_dim(input, indices, dim=None):
    # gather, after broadcasting input and indices against each other in every dimension
    # except `dim` (take_along_dim broadcasts, gather does not). No dim: the flattened input.
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    dim = dim % input.dim()
    rest = torch.broadcast_shapes(input.shape[:dim] + (1,) + input.shape[dim + 1:],
                                  indices.shape[:dim] + (1,) + indices.shape[dim + 1:])
    input = input.expand(rest[:dim] + (input.shape[dim],) + rest[dim + 1:])
    indices = indices.expand(rest[:dim] + (indices.shape[dim],) + rest[dim + 1:])
    return input.gather(dim, indices)
