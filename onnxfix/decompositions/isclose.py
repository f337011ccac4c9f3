import torch


def _onnx_isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    # equal, or both finite with |a - b| <= atol + rtol * |b| (in the default float dtype for
    # integers), NaN equal to NaN only with equal_nan, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.isclose(input, other, rtol, atol, equal_nan)
    close = input == other
    if equal_nan:
        close = close | (input.isnan() & other.isnan())
    a, b = (input, other) if input.is_floating_point() else (input.to(torch.get_default_dtype()), other.to(torch.get_default_dtype()))
    near = torch.isfinite(a) & torch.isfinite(b) & ((a - b).abs() <= atol + rtol * b.abs())
    return close | near
