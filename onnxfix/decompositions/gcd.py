import torch


def _onnx_gcd(input, other):
    # Euclid's algorithm unrolled for the worst case of the integer type (consecutive
    # Fibonacci numbers): a fixed number of where/remainder steps. Eager runs torch.gcd itself
    # (its C++ loop and |INT_MIN| overflow are its own); the steps agree with it on every value
    # but the type's minimum. Types narrower than int32 are computed in int32 and cast back
    # (their values fit), as onnxruntime has no Where kernel for int8, int16 or uint8.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.gcd(input, other)
    dtype = torch.promote_types(input.dtype, other.dtype)
    steps = {torch.uint8: 14, torch.int8: 13, torch.int16: 25, torch.int32: 48}.get(dtype, 94)
    wide = torch.int32 if dtype in (torch.uint8, torch.int8, torch.int16) else dtype
    a, b = input.to(dtype).abs().to(wide), other.to(dtype).abs().to(wide)
    for _ in range(steps):
        nonzero = b != 0
        remainder = torch.remainder(a, torch.where(nonzero, b, torch.ones_like(b)))
        a, b = torch.where(nonzero, b, a), torch.where(nonzero, remainder, torch.zeros_like(remainder))
    return a.to(dtype)
