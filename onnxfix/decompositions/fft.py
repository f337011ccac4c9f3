import torch


def _onnx_fft(input, n=None, dim=-1, norm=None):
    # torch.fft.fft through _onnx_fftn (same layout: a complex tensor as two real ones stacked last).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.view_as_real(torch.fft.fft(input, n, dim, norm))
    return _onnx_fftn(input, None if n is None else (n,), (dim,), norm)
