import torch


def _onnx_fft2(input, s=None, dim=(-2, -1), norm=None):
    # torch.fft.fft2 through _onnx_fftn (same layout: a complex tensor as two real ones stacked last).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.view_as_real(torch.fft.fft2(input, s, dim, norm))
    return _onnx_fftn(input, s, dim, norm)
