import torch


def _onnx_atanh(input):
    # log((1 + x) / (1 - x)) / 2 as log1p(2 x / (1 - x)) / 2, which keeps its precision near 0;
    # +-inf at +-1 and NaN beyond, as torch.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.atanh(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return 0.5 * torch.log1p(2 * x / (1 - x))
