import torch


def _onnx_bitwise_right_shift(input, other):
    # Arithmetic shift: x >> s == floor(x / 2**s) (negative x keep their sign; the legacy
    # exporter writes a division that truncates toward 0 instead). As in ATen, a shift below 0
    # or at least the type's width gives 0 or -1 for signed types (a shift by width - 1) and 0
    # for uint8. The shift is done in two halves so that 2**half fits the integer type (2**63
    # does not fit int64).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.bitwise_right_shift(input, other)
    x = torch.as_tensor(input)
    s = torch.as_tensor(other, device=x.device)
    dtype = torch.result_type(input, other)
    x, s = x.to(dtype), s.to(dtype)
    width = torch.iinfo(dtype).bits
    outside = (s < 0) | (s >= width)
    if torch.iinfo(dtype).min == 0:
        x = torch.where(outside, torch.zeros((), dtype=dtype, device=x.device), x)
    s = torch.where(outside, width - 1, s)
    first = torch.div(s, 2, rounding_mode="floor")
    two = torch.full((), 2, dtype=dtype, device=x.device)
    x = torch.div(x, torch.pow(two, first), rounding_mode="floor")
    return torch.div(x, torch.pow(two, s - first), rounding_mode="floor")
