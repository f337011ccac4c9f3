import torch


def _onnx_addmv(input, mat, vec, *, beta=1, alpha=1):
    # beta * input + alpha * (mat @ vec); beta = 0 ignores input (NaN included), as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.addmv(input, mat, vec, beta=beta, alpha=alpha)
    product = mat @ vec
    product = product if alpha == 1 else alpha * product
    if beta == 0:
        return product.expand(torch.broadcast_shapes(input.shape, product.shape)).clone()
    return (input if beta == 1 else beta * input) + product
