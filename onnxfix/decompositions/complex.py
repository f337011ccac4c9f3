import torch


def _onnx_complex(real, imag):
    # torch.complex(real, imag) as two real tensors stacked last (torch.view_as_real's layout,
    # as _onnx_irfft / _onnx_irfftn take it): outside export a view of torch.complex's own result
    # (bit for bit, its broadcasting and dtype checks included); while exporting, the stack.
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_real(torch.complex(real, imag))
    return torch.stack((real, imag), -1)
