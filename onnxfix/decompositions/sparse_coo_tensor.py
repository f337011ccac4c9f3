import torch


def _onnx_sparse_coo_tensor(indices, values, size=None, dtype=None, device=None, pin_memory=False,
                            requires_grad=False, check_invariants=None, is_coalesced=None):
    # Neither exporter has sparse tensors: while exporting, the dense tensor the sparse one stands
    # for, its values summed at their row-major positions by one scatter_add (duplicates add up,
    # as coalescing does; legacy's index_put with accumulate keeps only one). torch.sparse.mm,
    # nn.Linear and .to_dense() take it as it is; products then sum the zeros too (another order
    # than the sparse kernel's). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.sparse_coo_tensor(indices, values, size, dtype=dtype, device=device, pin_memory=pin_memory,
                                       requires_grad=requires_grad, check_invariants=check_invariants,
                                       is_coalesced=is_coalesced)
    if size is None:  # the size would come from the indices' values
        return torch.sparse_coo_tensor(indices, values, dtype=dtype, device=device)
    values = values if dtype is None else values.to(dtype)
    flat = indices[0]
    cells = size[0]
    for d in range(1, indices.shape[0]):  # noqa: ONX603 - over the sparse dimensions
        flat = flat * size[d] + indices[d]
        cells = cells * size[d]
    index = flat.reshape((-1,) + (1,) * (values.dim() - 1)).expand_as(values)
    dense = values.new_zeros((cells,) + tuple(values.shape[1:])).scatter_add(0, index, values)
    return dense.reshape(tuple(size))
