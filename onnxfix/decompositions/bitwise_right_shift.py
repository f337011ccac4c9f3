import torch


def _onnx_bitwise_right_shift(input, other):
    # Arithmetic shift: x >> s == floor(x / 2**s) (negative x keep their sign; the legacy
    # exporter writes a division that truncates toward 0 instead). As in ATen, a shift below 0
    # or at least the type's width gives 0 or -1 for signed types (a shift by width - 1) and 0
    # for uint8. The shift is done in two halves so that 2**half fits the integer type (2**63
    # does not fit int64).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.bitwise_right_shift(input, other)
    if torch.compiler.is_exporting():
        # dynamo translates the shift itself, but types a uint8 one int8 (a BitShift cast to the
        # signed type: a following `& 15` with a uint8 operand no longer loads): shifted in int64
        # and cast back, exact for 0..255 (a shift below 0 or past the width gives 0 either way)
        if isinstance(input, torch.Tensor) and input.dtype == torch.uint8 and (
                not isinstance(other, torch.Tensor) or other.dtype == torch.uint8):
            shift = other.long() if isinstance(other, torch.Tensor) else other % 256  # ATen takes a number as uint8
            return torch.bitwise_right_shift(input.long(), shift).to(torch.uint8)
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
