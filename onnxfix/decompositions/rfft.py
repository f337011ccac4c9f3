import torch


def _onnx_rfft(input, n=None, dim=-1, norm=None):
    # torch.fft.rfft through _onnx_rfftn (same layout: a complex tensor as two real ones stacked last).
    return _onnx_rfftn(input, None if n is None else (n,), (dim,), norm)
