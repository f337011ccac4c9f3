import torch


def _onnx_entr(input):
    # As ATen: -x log x for x > 0, 0 at 0, -inf for x < 0, NaN stays NaN.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.special.entr(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    value = torch.where(x > 0, -x * torch.log(x), torch.full((), -float("inf"), dtype=x.dtype, device=x.device))
    value = torch.where(x == 0, torch.zeros((), dtype=x.dtype, device=x.device), value)
    return torch.where(x.isnan(), x, value)
