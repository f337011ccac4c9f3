import torch


def _onnx_pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    # ||x1 - x2 + eps||_p over the last dim, as ATen (norm of the broadcast difference): the legacy
    # exporter's symbolic computes sum((x1 - x2)^p)^(1 / (p + eps)) instead, with no |.| (NaN or
    # wrong for p other than 2, inf for p = 0) and eps on the exponent, and drops nothing for 1-d
    # inputs (a [1] result for ATen's []). torch.linalg.vector_norm takes every order.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.pairwise_distance(x1, x2, p, eps, keepdim)
    return torch.linalg.vector_norm(x1 - x2 + eps, ord=p, dim=-1, keepdim=keepdim)
