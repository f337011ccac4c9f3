import torch


def _onnx_atan2(input, other):
    # torch.atan2(input, other), the angle of the point (other, input). Both exporters write it
    # as an arctangent of the quotient with quadrant corrections that lose the sign of zero and
    # infinities: at (+0, x < 0) they give -pi where torch gives pi (the negative real axis: a
    # real signal's phase), at (y, -0) -pi/2 for pi/2; the legacy one gives NaN at (0, 0) and both
    # 0 or NaN at (+-inf, +-inf). While exporting those points take C's atan2 values (a zero
    # `input`: pi with the zero's sign left of the origin, the zero right of it; a zero `other`:
    # +-pi/2; both infinite: +-pi/4 or +-3pi/4; NaN for a NaN, where dynamo's gives 0); elsewhere
    # the exported op (a -0 result may come out +0). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.atan2(input, other)
    angle = torch.atan2(input, other)
    y, x = torch.broadcast_tensors(input, other)
    y, x = y.to(angle.dtype), x.to(angle.dtype)
    pi = torch.full_like(angle, torch.pi)  # in the result's dtype (float64 keeps its digits)
    sign = torch.where(y < 0, -1.0, 1.0).to(angle.dtype)
    left = (x < 0) | ((x == 0) & (1 / x < 0))  # 1 / -0 is -inf: the zero's sign
    on_axis = torch.where(1 / y < 0, -pi, pi)
    angle = torch.where(y == 0, torch.where(left, on_axis, y), angle)
    angle = torch.where((x == 0) & ((y < 0) | (y > 0)), sign * (pi / 2), angle)
    diagonal = torch.where(x > 0, pi / 4, pi * 3 / 4) * sign
    angle = torch.where(torch.isinf(x) & torch.isinf(y), diagonal, angle)
    return torch.where(torch.isnan(x) | torch.isnan(y), x + y, angle)  # dynamo's Atan2 gives 0 there
