import torch


def _onnx_i0e(input):
    # Exponentially scaled I0, exp(-|x|) I0(x): ATen's calc_i0e (Cephes i0e), step for step in
    # the input's dtype (half/bfloat16 through float32, as ATen); even in x, no exp evaluated.
    # The series: _onnx_bessel_i_series.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.special.i0e(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()
    t = compute.abs()
    small, large = _onnx_bessel_i_series(t, 0)
    return torch.where(t <= 8.0, small, large / torch.sqrt(t)).to(x.dtype)
