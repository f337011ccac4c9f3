import torch


def _onnx_signbit(input):
    # True for negative values and -0.0 (1 / -0.0 = -inf). The sign bit of a NaN cannot be read
    # with exportable ops: a NaN always gives False here.
    if not input.is_floating_point():
        return input < 0
    return (input < 0) | ((input == 0) & (1 / input < 0))
