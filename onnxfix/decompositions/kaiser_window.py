import torch


def _onnx_kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=torch.strided, device=None,
                        pin_memory=False, requires_grad=False):
    # ATen's formula: i0(beta * sqrt(1 - ((n - a) / a)^2)) / i0(beta), a = (N - 1) / 2 (N + 1 points
    # cut to N when periodic), with _onnx_i0. The dynamo exporter has no translation of
    # aten.kaiser_window (torchaudio's resampling filters). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.kaiser_window(window_length, periodic, beta, dtype=dtype, layout=layout, device=device,
                                   pin_memory=pin_memory, requires_grad=requires_grad)
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype, device=device)
    points = window_length + 1 if periodic else window_length
    steps = torch.arange(points, dtype=dtype or torch.get_default_dtype(), device=device)
    alpha = (points - 1) / 2.0
    ratio = (steps - alpha) / alpha
    window = _onnx_i0(beta * torch.sqrt((1 - ratio * ratio).clamp(min=0))) / _onnx_i0(torch.tensor(beta, dtype=steps.dtype))
    return window[:window_length] if periodic else window
