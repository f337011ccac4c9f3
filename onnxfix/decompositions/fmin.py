import torch


def _onnx_fmin(input, other):
    # The minimum, ignoring a NaN on either side (_onnx_nan_ignoring_extreme). Neither exporter
    # translates it (dynamo: prims.fmin).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return torch.fmin(input, other)
    return _onnx_nan_ignoring_extreme(torch.minimum, input, other)
