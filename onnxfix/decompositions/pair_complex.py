import torch


def _onnx_pair_complex(real, imag):
    # torch.complex(real, imag): while exporting, the two parts as a _onnx_complex_pair
    # (broadcast to one shape, as torch.complex does). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.complex(real, imag)
    real, imag = torch.broadcast_tensors(real, imag)
    return _onnx_complex_pair(real, imag)
