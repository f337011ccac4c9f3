import torch


def _onnx_logaddexp2(input, other):
    # ATen's formula: max + log1p(2 ** -|a - b|) / ln 2, and a itself where a == b is infinite.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.logaddexp2(input, other)
    big = torch.maximum(input, other)
    value = big + torch.log1p(torch.pow(2.0, -(input - other).abs())) * (1.0 / 0.6931471805599453)
    return torch.where((input == other) & input.isinf(), big, value)
