import torch


def _onnx_floor_divide(input, other):
    # Eager keeps the op. Both exporters write a float floor_divide as Floor(Div(a, b)), which rounds an
    # inexact quotient (0.7 / 0.1 = 7.000001) down to 7 where ATen gives 6: while exporting, float
    # quotients are computed as ATen's kernel computes them. Legacy also writes an integer one as a
    # truncating Div (wrong by 1 when the quotient is negative); div(rounding_mode="floor") is the
    # same ATen kernel and legacy translates it with a floor.
    if not torch.onnx.is_in_onnx_export():
        return torch.floor_divide(input, other)
    dtype = torch.result_type(input, other)
    if dtype.is_floating_point:
        return _floored_quotient(input, other, dtype)
    if torch.compiler.is_exporting():  # the dynamo exporter's integer floor_divide is exact
        return torch.floor_divide(input, other)
    return torch.div(input, other, rounding_mode="floor")


def _floored_quotient(input, other, dtype):
    # ATen's div_floor_floating (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp): the quotient of the
    # numerator less its remainder, moved toward -inf where the remainder's sign differs from the
    # divisor's, then rounded to the nearest whole number. Half and bfloat16 in float32, as ATen does for
    # a number or a broadcast divisor (its vectorised bfloat16 path rounds each step: kernels differ).
    compute = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    a = torch.as_tensor(input, dtype=compute)  # a Python number straight to that dtype, as ATen wraps it
    b = torch.as_tensor(other, dtype=compute)
    quotient = a / b
    mod = torch.fmod(a, b)
    # fmod's fix-up for a finite numerator whose quotient overflows (ATen's Sleef_fmod note)
    numerator = torch.where((quotient.abs() == float("inf")) & (a.abs() != float("inf")), a, a - mod)
    div = numerator / b
    div = torch.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floored = torch.floor(div)
    floored = torch.where(div - floored > 0.5, floored + 1, floored)
    floored = torch.where(div == 0, quotient * 0, floored)  # a signed zero, the quotient's sign
    return torch.where(b == 0, quotient, floored).to(dtype)
