import torch


def _onnx_complex_angle(input):
    # `torch.angle` of a complex tensor given as two real ones stacked last (torch.view_as_real's
    # layout, as the _onnx_fft* helpers return it). Outside export the input is a view of the
    # complex result, so view_as_complex gives that tensor back and its own angle runs (bit for
    # bit); while exporting, atan2(imag, real), the argument of re + i*im, through _onnx_atan2:
    # both exporters' Atan2 give -pi on the negative real axis (the DC and Nyquist bins of a real
    # signal's spectrum), where torch gives pi.
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_complex(input).angle()
    real, imag = input[..., 0], input[..., 1]
    return _onnx_atan2(imag, real)
