import torch


def _onnx_to_dense(input, dtype=None, masked_grad=None):
    # Tensor.to_dense of what _onnx_sparse_coo_tensor made dense while exporting: the tensor
    # itself (the legacy exporter has no symbolic for aten::to_dense, even of a dense tensor).
    # Eager, and a sparse tensor, keep the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return input.to_dense(dtype=dtype, masked_grad=masked_grad)
    if input.is_sparse:
        return input.to_dense(dtype=dtype, masked_grad=masked_grad)
    return input if dtype is None else input.to(dtype)
