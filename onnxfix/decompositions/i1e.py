import torch


def _onnx_i1e(input):
    # Exponentially scaled I1, exp(-|x|) I1(x): ATen's calc_i1e (Cephes i1e), step for step in
    # the input's dtype (half/bfloat16 through float32, as ATen); odd in x. The series:
    # _onnx_bessel_i_series.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.i1e(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()
    t = compute.abs()
    small, large = _onnx_bessel_i_series(t, 1)
    out = torch.where(t <= 8.0, small * t, large / torch.sqrt(t))
    return torch.where(compute < 0.0, -out, out).to(x.dtype)
