import torch


def _onnx_dist(input, other, p=2):
    # As ATen: the p-norm of input - other over all elements.
    return torch.linalg.vector_norm(input - other, p)
