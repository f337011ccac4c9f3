import torch


def _onnx_cdist_forward(x1, x2, p, compute_mode):
    # ATen's own cdist (torch.ops.aten._cdist_forward, called directly): compute_mode is an int
    # there (0: a matrix product for p=2 on large inputs, 1: always, 2: never), or None; while
    # exporting, _onnx_cdist's broadcast differences, which agree to float rounding.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.ops.aten._cdist_forward(x1, x2, p, compute_mode)
    return _onnx_cdist(x1, x2, p)
