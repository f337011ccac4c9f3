import torch


def _onnx_gcd(input, other):
    # Euclid's algorithm unrolled for the worst case of the integer type (consecutive
    # Fibonacci numbers): a fixed number of where/remainder steps, exact for every input.
    dtype = torch.promote_types(input.dtype, other.dtype)
    a, b = input.to(dtype).abs(), other.to(dtype).abs()
    steps = {torch.uint8: 14, torch.int8: 13, torch.int16: 25, torch.int32: 48}.get(dtype, 94)
    for _ in range(steps):
        nonzero = b != 0
        remainder = torch.remainder(a, torch.where(nonzero, b, torch.ones_like(b)))
        a, b = torch.where(nonzero, b, a), torch.where(nonzero, remainder, torch.zeros_like(remainder))
    return a
