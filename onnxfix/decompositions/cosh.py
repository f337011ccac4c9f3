import torch


def _onnx_cosh(input):
    # (e + 1/e) / 2 with e = exp(|x|), written as E + 1 / (4 E), E = exp(|x| - ln 2), so that it
    # overflows only where cosh does (|x| > about 89.4 in float32).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.cosh(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    half = torch.exp(x.abs() - 0.6931471805599453)
    return half + 0.25 / half
