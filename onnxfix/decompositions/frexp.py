import torch


def _onnx_frexp(input):
    # x = mantissa * 2**exponent with 0.5 <= |mantissa| < 1, exactly: the exponent estimated
    # from log(|x|), then the mantissa scaled by exact powers of two (products of the constants
    # 2**(2**i)), corrected by one step either way. Computed in float64 (exact for every float
    # dtype; float32 subnormals become normal) and scaled in two halves, so float64 subnormals
    # (exponent down to -1073) never need an unrepresentable 2**1073. Zeros (with their sign),
    # inf and NaN give (x, 0), as torch. Returns torch.return_types.frexp like torch.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.frexp(input)
    ax = input.abs()
    regular = (ax > 0) & (ax < float("inf"))
    safe = torch.where(regular, ax, torch.ones_like(ax)).double()
    exponent = torch.floor(torch.log(safe) * 1.4426950408889634) + 1

    def power_of_two(n):  # 2**n for integer-valued n with |n| < 1024, exactly
        magnitude, result = n.abs(), torch.ones_like(n)
        for i in range(10):  # noqa: ONX603 - fixed count: the 10 bits of |n| < 1024
            quotient = torch.floor(magnitude / 2.0**i)
            bit = quotient - 2 * torch.floor(quotient / 2)
            result = result * torch.where(bit > 0, torch.full_like(n, 2.0 ** (2**i)), torch.ones_like(n))
        return torch.where(n < 0, 1 / result, result)

    half = torch.floor(exponent / 2)
    mantissa = safe * power_of_two(-half) * power_of_two(half - exponent)
    big = mantissa >= 1
    mantissa, exponent = torch.where(big, mantissa / 2, mantissa), torch.where(big, exponent + 1, exponent)
    small = mantissa < 0.5
    mantissa, exponent = torch.where(small, mantissa * 2, mantissa), torch.where(small, exponent - 1, exponent)
    mantissa = torch.where(input < 0, -mantissa, mantissa).to(input.dtype)
    mantissa = torch.where(regular, mantissa, input)
    exponent = torch.where(regular, exponent, torch.zeros_like(exponent)).to(torch.int32)
    return torch.return_types.frexp((mantissa, exponent))
