import torch


def _onnx_nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    # quantile over the non-NaN values only (all NaN gives NaN), as torch.nanquantile.
    return _onnx_quantile(input, q, dim, keepdim, interpolation=interpolation, _ignore_nan=True)
