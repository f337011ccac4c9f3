import torch


def _onnx_bitwise_not(input):
    # The legacy exporter has no integer Not: ~x = -x - 1 in two's complement (wrapping)
    # arithmetic, every integer dtype (uint8 too: 255 - x). Booleans keep ~ (exported).
    if input.dtype == torch.bool:
        return ~input
    return -input - 1
