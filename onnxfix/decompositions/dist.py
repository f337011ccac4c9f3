import torch


def _onnx_dist(input, other, p=2):
    # As ATen: the p-norm of input - other over all elements.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.dist(input, other, p)
    return torch.linalg.vector_norm(input - other, p)
