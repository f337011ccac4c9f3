import torch


def _onnx_heaviside(input, values):
    # As ATen: `values` where input == 0, else 1 for input > 0 and 0 otherwise (NaN gives 0).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.heaviside(input, values)
    step = (input > 0).to(input.dtype)
    return torch.where(input == 0, values.to(input.dtype), step)
