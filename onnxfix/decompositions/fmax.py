import torch


def _onnx_fmax(input, other):
    # The maximum, ignoring a NaN on either side (_onnx_nan_ignoring_extreme). Neither exporter
    # translates it (dynamo: prims.fmax).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.fmax(input, other)
    return _onnx_nan_ignoring_extreme(torch.maximum, input, other)
