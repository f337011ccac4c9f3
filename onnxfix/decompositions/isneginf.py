import torch


def _onnx_isneginf(input):
    # Only floating types hold -inf.
    if not input.is_floating_point():
        return torch.zeros_like(input, dtype=torch.bool)
    return input == -float("inf")
