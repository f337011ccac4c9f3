import torch


def _onnx_copysign(input, other):
    # |input| with the sign of `other`; -0.0 counts as negative (1 / -0.0 = -inf). The sign bit
    # of a NaN in `other` cannot be read with exportable ops: a negative NaN counts as positive.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.copysign(input, other)
    dtype = torch.result_type(input, other)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    magnitude = input.to(dtype).abs()
    sign = torch.as_tensor(other, device=magnitude.device).to(dtype)
    negative = (sign < 0) | ((sign == 0) & (1 / sign < 0))
    return torch.where(negative, -magnitude, magnitude)
