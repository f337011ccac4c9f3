import torch


def _onnx_xlog1py(input, other):
    # As ATen: NaN where other is NaN, else 0 where input == 0, else input * log1p(other).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.special.xlog1py(input, other)
    x, y = torch.as_tensor(input), torch.as_tensor(other)
    dtype = torch.result_type(input, other)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    x, y = x.to(dtype), y.to(dtype)
    value = torch.where(x == 0, torch.zeros((), dtype=dtype), x * torch.log1p(y))
    return torch.where(y.isnan(), y, value)
