import torch


def _onnx_expm1(input):
    # exp(x) - 1 without its cancellation near 0 (Kahan): with u = exp(x), (u - 1) * x / log(u) for
    # |x| <= 1, x itself where u rounds to 1, u - 1 above (no cancellation; the product would
    # overflow); inf and NaN pass through.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.expm1(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    u = torch.exp(x)
    um1 = u - 1
    safe_log = torch.where((u == 1) | u.isinf(), torch.ones_like(u) * 2, u)  # keeps unused lanes finite
    kahan = um1 * x / torch.log(safe_log)
    value = torch.where((um1 == -1) | (x.abs() > 1), um1, kahan)  # no cancellation to undo above 1
    value = torch.where(u.isinf(), u, value)
    return torch.where(u == 1, x, value)
