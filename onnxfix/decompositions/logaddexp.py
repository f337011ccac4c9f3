import torch


def _onnx_logaddexp(input, other):
    # ATen's formula: max + log1p(exp(-|a - b|)), and a itself where a == b is infinite (so
    # logaddexp(-inf, -inf) = -inf, not NaN).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.logaddexp(input, other)
    big = torch.maximum(input, other)
    value = big + torch.log1p(torch.exp(-(input - other).abs()))
    return torch.where((input == other) & input.isinf(), big, value)
