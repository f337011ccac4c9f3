import torch


def _onnx_rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    # ATen's own formula: arange(n // 2 + 1) times the reciprocal 1 / (n * d), taken in double
    # as ATen does (multiplying by it, not dividing, is what makes the result bit-identical).
    # aten.fft_rfftfreq has no ONNX translation; arange and mul have.
    result = torch.arange(n // 2 + 1, dtype=dtype or torch.get_default_dtype(), device=device)
    result = result * (1.0 / (n * d))
    return result.requires_grad_() if requires_grad else result
