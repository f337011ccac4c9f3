import torch


def _onnx_ldexp(input, other):
    # As ATen: input * 2.0 ** other.
    return torch.mul(input, torch.pow(2.0, other))
