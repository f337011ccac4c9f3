import torch


def _onnx_lcm(input, other):
    # |a| / gcd(a, b) * |b|, and 0 when either is 0 (requires _onnx_gcd).
    dtype = torch.promote_types(input.dtype, other.dtype)
    a, b = input.to(dtype).abs(), other.to(dtype).abs()
    divisor = _onnx_gcd(a, b)
    safe = torch.where(divisor == 0, torch.ones_like(divisor), divisor)
    return torch.where(divisor == 0, torch.zeros_like(divisor), torch.div(a, safe, rounding_mode="trunc") * b)
