import torch


def _onnx_sinc(input):
    # As ATen: sin(pi x) / (pi x), and 1 at 0. Integers are computed in the default float type.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.sinc(input)
    x = input if input.is_floating_point() or input.is_complex() else input.to(torch.get_default_dtype())
    product = x * 3.141592653589793
    return torch.where(x == 0, torch.ones((), dtype=x.dtype, device=x.device), torch.sin(product) / product)
