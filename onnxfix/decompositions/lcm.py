import torch


def _onnx_lcm(input, other):
    # |a / gcd(a, b) * b|, and 0 when either is 0 (requires _onnx_gcd); the absolute value
    # after the product, as torch takes it, so an overflowing product wraps to the same value.
    # Eager runs torch.lcm itself. Types narrower than int32 are computed in int32 and cast back:
    # the product fits, and the cast wraps it as the narrow type's own overflow does
    # (onnxruntime has no Where kernel for int8, int16 or uint8).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.lcm(input, other)
    dtype = torch.promote_types(input.dtype, other.dtype)
    wide = torch.int32 if dtype in (torch.uint8, torch.int8, torch.int16) else dtype
    divisor = _onnx_gcd(input.to(dtype), other.to(dtype)).to(wide)  # the narrow type's step count
    a, b = input.to(dtype).abs().to(wide), other.to(dtype).abs().to(wide)
    safe = torch.where(divisor == 0, torch.ones_like(divisor), divisor)
    product = (torch.div(a, safe, rounding_mode="trunc") * b).abs()
    return torch.where(divisor == 0, torch.zeros_like(divisor), product).to(dtype)
