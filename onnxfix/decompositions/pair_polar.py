import torch


def _onnx_pair_polar(abs, angle):
    # torch.polar, whose complex result ONNX cannot carry: while exporting, abs * cos(angle) and
    # abs * sin(angle) as a _onnx_complex_pair (ATen's formula). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.polar(abs, angle)
    return _onnx_complex_pair(abs * torch.cos(angle), abs * torch.sin(angle))
