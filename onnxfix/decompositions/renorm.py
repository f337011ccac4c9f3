import torch


def _onnx_renorm(input, p, dim, maxnorm):
    # As ATen: each slice along `dim` whose p-norm exceeds maxnorm is scaled by
    # maxnorm / (norm + 1e-7).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.renorm(input, p, dim, maxnorm)
    dim = dim % input.dim()
    others = [d for d in range(input.dim()) if d != dim]
    norm = torch.linalg.vector_norm(input, p, others, keepdim=True)
    factor = torch.where(norm > maxnorm, maxnorm / (norm + 1e-7), torch.ones((), dtype=norm.dtype, device=norm.device))
    return input * factor
