import torch


def _onnx_rms_norm(input, normalized_shape, weight=None, eps=None):
    # As ATen's composite: x * rsqrt(mean(x^2 over the normalized dims) + eps), times weight,
    # computed in float32 for half types and cast back at the end; eps defaults to the machine
    # epsilon of the computation type.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.rms_norm(input, normalized_shape, weight, eps)
    dims = list(range(-len(normalized_shape), 0))
    x = input.float() if input.dtype in (torch.float16, torch.bfloat16) else input
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    result = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        result = result * weight
    return result.type_as(input)
