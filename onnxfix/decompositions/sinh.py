import torch


def _onnx_sinh(input):
    # (e - 1/e) / 2 written with expm1 (em = exp(|x|) - 1, _onnx_expm1's: em (em + 2) / (em + 1) / 2) so that small
    # arguments keep their precision, and as exp(|x| - ln 2) where 1/e no longer matters (|x| > 20)
    # so the result overflows only where sinh does. Odd: the sign of x is put back at the end.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.sinh(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    a = x.abs()
    em = _onnx_expm1(torch.clamp(a, max=20.0))
    near = em * (em + 2) / (em + 1) / 2
    far = torch.exp(a - 0.6931471805599453)
    value = torch.where(a > 20, far, near)
    return torch.where(x < 0, -value, value)
