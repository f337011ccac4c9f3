import torch


def _onnx_sparse_sum(input, dim=None, dtype=None):
    # torch.sparse.sum of what _onnx_sparse_coo_tensor made dense while exporting: the dense sum
    # (the sparse result's .to_dense() is the same values). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.sparse.sum(input, dim, dtype)
    if input.is_sparse:  # not one the helper made dense
        return torch.sparse.sum(input, dim, dtype)
    if dim is None:
        return input.sum(dtype=dtype)
    return input.sum(dim, dtype=dtype)
