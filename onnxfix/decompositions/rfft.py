import torch


def _onnx_rfft(input, n=None, dim=-1, norm=None):
    # torch.fft.rfft through _onnx_rfftn (same layout: a complex tensor as two real ones stacked last).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.view_as_real(torch.fft.rfft(input, n, dim, norm))
    return _onnx_rfftn(input, None if n is None else (n,), (dim,), norm)
