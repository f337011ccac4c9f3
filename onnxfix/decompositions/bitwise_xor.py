import torch


def _onnx_bitwise_xor(input, other):
    # The legacy exporter translates & on integers but not ^: x ^ y = x + y - 2 * (x & y), exact
    # in two's complement (wrapping) arithmetic for every integer dtype. Booleans keep ^.
    if torch.result_type(input, other) == torch.bool:
        return input ^ other
    both = input & other
    return input + other - both - both
