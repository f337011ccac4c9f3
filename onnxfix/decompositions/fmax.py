import torch


def _onnx_fmax(input, other):
    # The maximum, ignoring a NaN on either side (NaN only where both are NaN), as ATen; integer
    # tensors have no NaN. Neither exporter translates it (dynamo: prims.fmax).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.fmax(input, other)
    dtype = torch.result_type(input, other)
    input = input.to(dtype)
    other = torch.as_tensor(other, device=input.device).to(dtype)
    larger = torch.maximum(input, other)
    if not larger.is_floating_point():
        return larger
    return torch.where(input.isnan(), other, torch.where(other.isnan(), input, larger))
