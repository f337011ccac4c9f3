import torch


def _onnx_pair_scalar(input, other):
    # `phase * 1j` / `1j * y` (a real tensor times a Python complex number): while exporting, the
    # product as a _onnx_complex_pair (ONNX has no complex tensors), so `mag * torch.exp(phase *
    # 1j)` and `mag * (x + 1j * y)` reach an istft or irfft as parts. Every other product, and
    # eager, is the product itself.
    if not torch.onnx.is_in_onnx_export():
        return input * other
    if not isinstance(other, complex) or not isinstance(input, torch.Tensor) or input.is_complex():
        return input * other
    return _onnx_complex_pair(input * other.real, input * other.imag)
