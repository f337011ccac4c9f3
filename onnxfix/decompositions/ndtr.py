import torch


def _onnx_ndtr(input):
    # The standard normal CDF: (1 + erf(x / sqrt(2))) / 2.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.special.ndtr(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    return (1 + torch.erf(x * 0.7071067811865476)) * 0.5
