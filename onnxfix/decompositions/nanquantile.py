import torch


def _onnx_nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    # As _onnx_quantile over the non-NaN values of each slice (NaN if all are NaN).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nanquantile(input, q, dim, keepdim, interpolation=interpolation)
    return _onnx_quantile_impl(input, q, dim, keepdim, interpolation, True)
