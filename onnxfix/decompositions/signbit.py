import torch


def _onnx_signbit(input):
    # True for negative values and -0.0 (1 / -0.0 = -inf). The sign bit of a NaN cannot be read
    # with exportable ops: a NaN always gives False here.
    # Both exporters run the decomposition: dynamo's own translation of signbit says False for -0.0 (measured, torch 2.13).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.signbit(input)
    if not input.is_floating_point():
        return input < 0
    return (input < 0) | ((input == 0) & (1 / input < 0))
