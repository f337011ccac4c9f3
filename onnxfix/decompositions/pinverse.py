import torch


def _onnx_pinverse(input, rcond=1e-15):
    # torch.pinverse, the old API of torch.linalg.pinv: its rcond (default 1e-15) is pinv's rtol
    # (requires _onnx_linalg_pinv).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.pinverse(input, rcond)
    return _onnx_linalg_pinv(input, rtol=rcond)
