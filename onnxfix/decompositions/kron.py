import torch


def _onnx_kron(input, other):
    # Each output element is one product a[i] * b[j]: interleave the axes of the two operands
    # (padded to the same rank) and merge each pair. Exact.
    # Both exporters run the decomposition: under torch.export, torch.kron's own decomposition
    # turns a dynamic batch into a constant.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.kron(input, other)
    rank = max(input.dim(), other.dim())
    a = input.reshape((1,) * (rank - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (rank - other.dim()) + tuple(other.shape))
    a_shape, b_shape = [], []
    for size in a.shape:  # noqa: ONX603 - one step per dimension (static rank)
        a_shape += [size, 1]
    for size in b.shape:  # noqa: ONX603 - one step per dimension (static rank)
        b_shape += [1, size]
    product = a.reshape(a_shape) * b.reshape(b_shape)
    return product.reshape([a.shape[d] * b.shape[d] for d in range(rank)])  # noqa: ONX603 - static rank
