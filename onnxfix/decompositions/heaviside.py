import torch


def _onnx_heaviside(input, values):
    # As ATen: `values` where input == 0, else 1 for input > 0 and 0 otherwise (NaN gives 0).
    step = (input > 0).to(input.dtype)
    return torch.where(input == 0, values.to(input.dtype), step)
