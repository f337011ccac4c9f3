import torch


def _onnx_bitwise_left_shift(input, other):
    # torch.onnx writes a left shift as an ONNX BitShift on the unsigned type of its width and casts
    # the result to the signed type: a uint8 shift comes out int8 (a value of 128 or more negative,
    # and everything computed from it wrong). A uint8 shift is done in int64 and its low byte kept,
    # the bits ATen's uint8 shift gives (a shift by 8 or more: 0). Other dtypes shift as they are.
    if not torch.onnx.is_in_onnx_export():
        return torch.bitwise_left_shift(input, other)
    if torch.result_type(input, other) != torch.uint8:
        return torch.bitwise_left_shift(input, other)
    device = input.device if isinstance(input, torch.Tensor) else other.device
    x = torch.as_tensor(input, device=device).to(torch.int64)
    # ATen converts the shift to uint8 too (259 shifts by 3); 8 or more shifts every bit out
    s = torch.as_tensor(other, device=device).to(torch.uint8).to(torch.int64).clamp(max=8)
    return torch.bitwise_and(torch.bitwise_left_shift(x, s), 255).to(torch.uint8)
