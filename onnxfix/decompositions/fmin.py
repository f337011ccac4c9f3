import torch


def _onnx_fmin(input, other):
    # The minimum, ignoring a NaN on either side (NaN only where both are NaN), as ATen; integer
    # tensors have no NaN. Neither exporter translates it (dynamo: prims.fmin).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.fmin(input, other)
    dtype = torch.result_type(input, other)
    input = input.to(dtype)
    other = torch.as_tensor(other, device=input.device).to(dtype)
    smaller = torch.minimum(input, other)
    if not smaller.is_floating_point():
        return smaller
    return torch.where(input.isnan(), other, torch.where(other.isnan(), input, smaller))
