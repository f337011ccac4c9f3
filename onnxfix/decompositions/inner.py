import torch


def _onnx_inner(input, other):
    # sum over the last dimension of both: a matmul of the two flattened to (rows, k), reshaped
    # to input.shape[:-1] + other.shape[:-1]; a product when either is 0-d, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.inner(input, other)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    k = input.shape[-1]
    product = input.reshape(-1, k) @ other.reshape(-1, k).transpose(0, 1)
    return product.reshape(input.shape[:-1] + other.shape[:-1])
