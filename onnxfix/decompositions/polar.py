import torch


def _onnx_polar(abs, angle):
    # torch.polar(abs, angle) as two real tensors stacked last (torch.view_as_real's layout, as
    # _onnx_irfft / _onnx_irfftn take it): outside export a view of torch.polar's own result (bit
    # for bit); while exporting, abs * cos(angle) and abs * sin(angle) stacked.
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_real(torch.polar(abs, angle))
    return torch.stack((abs * torch.cos(angle), abs * torch.sin(angle)), -1)
