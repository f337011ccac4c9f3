import torch


def _onnx_ldexp(input, other):
    # As ATen: input * 2.0 ** other.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.ldexp(input, other)
    return torch.mul(input, torch.pow(2.0, other))
