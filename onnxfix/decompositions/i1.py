import torch


def _onnx_i1(input):
    # Modified Bessel function I1: ATen's calc_i1 (Cephes i1), step for step in the input's
    # dtype (half/bfloat16 through float32, as ATen); odd in x. The series:
    # _onnx_bessel_i_series.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.i1(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()
    t = compute.abs()
    small, large = _onnx_bessel_i_series(t, 1)
    out = torch.where(t <= 8.0, torch.exp(t) * t * small, torch.exp(t) * large / torch.sqrt(t))
    return torch.where(compute < 0.0, -out, out).to(x.dtype)
