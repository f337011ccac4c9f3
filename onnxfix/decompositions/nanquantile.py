import torch


def _onnx_nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    # As _onnx_quantile over the non-NaN values of each slice (NaN if all are NaN).
    return _onnx_quantile_impl(input, q, dim, keepdim, interpolation, True)
