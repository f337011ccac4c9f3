import torch


def _onnx_bartlett_window(window_length, periodic=True, *, dtype=None, layout=torch.strided, device=None,
                          pin_memory=False, requires_grad=False):
    # ATen's steps: x = n * 2 / (N - 1), and 2 - x over the second half (N + 1 points cut to N when
    # periodic). The dynamo exporter has no translation of aten.bartlett_window. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.bartlett_window(window_length, periodic, dtype=dtype, layout=layout, device=device,
                                     pin_memory=pin_memory, requires_grad=requires_grad)
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype, device=device)
    points = window_length + 1 if periodic else window_length
    steps = torch.arange(points, dtype=dtype or torch.get_default_dtype(), device=device)
    rising = steps * (2.0 / (points - 1))
    window = torch.where(steps < ((points - 1) >> 1) + 1, rising, 2 - rising)
    return window[:window_length] if periodic else window
