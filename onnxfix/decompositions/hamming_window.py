import torch


def _onnx_hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=torch.strided,
                         device=None, pin_memory=False, requires_grad=False):
    # torch.hamming_window as torch defines it, alpha - beta * cos(2 pi n / (N - 1)) (N + 1 points
    # cut to N when periodic). The dynamo exporter writes ONNX's HammingWindow, whose
    # coefficients are 25/46 and 21/46, not 0.54 and 0.46: silently wrong (0.087 where torch has
    # 0.08 at the ends). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.hamming_window(window_length, periodic, alpha, beta, dtype=dtype, layout=layout, device=device,
                                    pin_memory=pin_memory, requires_grad=requires_grad)
    if window_length <= 1:
        return torch.ones(window_length, dtype=dtype, device=device)
    points = window_length + 1 if periodic else window_length
    steps = torch.arange(points, dtype=dtype or torch.get_default_dtype(), device=device)
    window = alpha - beta * torch.cos(steps * (2 * torch.pi / (points - 1)))
    return window[:window_length] if periodic else window
