import torch


def _onnx_irfft(input, n=None, dim=-1, norm=None):
    # torch.fft.irfft through _onnx_irfftn (same layout: a complex tensor as two real ones stacked last).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.fft.irfft(torch.view_as_complex(input), n, dim, norm)
    return _onnx_irfftn(input, None if n is None else (n,), (dim,), norm)
