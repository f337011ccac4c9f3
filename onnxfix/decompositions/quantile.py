import torch


def _onnx_quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    # ATen's algorithm: sort along `dim`, rank = q * (n - 1) (NaN in a slice: the result is
    # NaN), adjust the rank for the interpolation mode, gather below/above and lerp. NaN is set
    # explicitly rather than by sorting it last (the exporters' TopK need not order NaN).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.quantile(input, q, dim, keepdim, interpolation=interpolation)
    return _onnx_quantile_impl(input, q, dim, keepdim, interpolation, False)
