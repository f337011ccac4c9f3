import torch


def _onnx_pair_view_as_complex(input):
    # torch.view_as_complex of (..., 2) real pairs: while exporting, the pairs' two columns as a
    # _onnx_complex_pair (the same values, no complex tensor). Eager keeps the op (a view).
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_complex(input)
    return _onnx_complex_pair(input[..., 0], input[..., 1])
