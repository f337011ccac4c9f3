import torch


def _onnx_hypot(input, other):
    # sqrt(a^2 + b^2) computed as big * sqrt(1 + (small / big)^2), which does not overflow
    # where the naive formula would; inf in either argument gives inf (even with a NaN).
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.hypot(input, other)
    a, b = input.abs(), other.abs()
    big, small = torch.maximum(a, b), torch.minimum(a, b)
    ratio = torch.where(big == 0, torch.zeros_like(big), small / big)
    out = big * torch.sqrt(1 + ratio * ratio)
    return torch.where(torch.isinf(a) | torch.isinf(b), torch.full_like(out, float("inf")), out)
