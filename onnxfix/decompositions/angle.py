import torch


def _onnx_angle(input):
    # torch.angle. Of a complex tensor, the argument of re + i*im: pi on the negative real axis at a
    # +0 imaginary part (a real signal's DC and Nyquist bins, where ATen's real-to-complex FFT writes
    # +0); the dynamo exporter writes Atan2 of the parts, whose quadrant corrections give -pi there.
    # While exporting, _onnx_atan2 of the parts. Of a real tensor, pi where negative, 0 elsewhere,
    # NaN kept (ATen's angle), in the input's floating dtype (the default one for integers): the
    # legacy exporter has no symbolic for it. A pair the legacy exporter's helpers made takes its
    # own angle (_onnx_atan2 too). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.angle(input)
    if not isinstance(input, torch.Tensor):
        return torch.angle(input)
    if input.is_complex():
        return _onnx_atan2(input.imag, input.real)
    real = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    half_turn = torch.where(real < 0, torch.full_like(real, torch.pi), torch.zeros_like(real))
    return torch.where(torch.isnan(real), real, half_turn)
