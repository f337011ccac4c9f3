import torch


def _onnx_nan_ignoring_extreme(extreme, input, other):
    # `extreme` (torch.maximum or torch.minimum) of the two in their promoted dtype, with the other
    # side where one side is NaN (NaN only where both are): fmax / fmin as ATen. Integers have no NaN.
    dtype = torch.result_type(input, other)
    input = input.to(dtype)
    other = torch.as_tensor(other, device=input.device).to(dtype)
    chosen = extreme(input, other)
    if not chosen.is_floating_point():
        return chosen
    return torch.where(input.isnan(), other, torch.where(other.isnan(), input, chosen))
