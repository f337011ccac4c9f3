import torch


def _onnx_pair_rfft2(input, s=None, dim=(-2, -1), norm=None):
    # torch.fft.rfft2: while exporting, the one-sided spectrum as a _onnx_complex_pair of the
    # DFT's real and imaginary parts (_onnx_rfftn, sizes from the input), so that a complex
    # filter product and torch.fft.irfft2 of it (the pair's) export. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.fft.rfft2(input, s, dim, norm)
    stacked = _onnx_rfftn(input, s, dim, norm)
    return _onnx_complex_pair(stacked[..., 0], stacked[..., 1])
