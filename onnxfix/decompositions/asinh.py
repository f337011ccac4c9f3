import torch


def _onnx_asinh(input):
    # log(|x| + sqrt(x^2 + 1)) with its sign, as log1p(a + a^2 / (1 + sqrt(1 + a^2))) so that
    # small arguments keep their precision; log(a) + ln 2 above 1e8, where a^2 would overflow.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.asinh(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    a = x.abs()
    small = torch.where(a > 1e8, torch.ones_like(a), a)  # keeps the unused lanes finite
    near = torch.log1p(small + small * small / (1 + torch.sqrt(1 + small * small)))
    far = torch.log(a) + 0.6931471805599453
    value = torch.where(a > 1e8, far, near)
    return torch.where(x < 0, -value, value)
