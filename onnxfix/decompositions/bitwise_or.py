import torch


def _onnx_bitwise_or(input, other):
    # The legacy exporter translates & on integers but not |: x | y = x + y - (x & y), exact in
    # two's complement (wrapping) arithmetic for every integer dtype. Booleans keep | (exported).
    if torch.result_type(input, other) == torch.bool:
        return input | other
    return input + other - (input & other)
