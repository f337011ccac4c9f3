import torch


def _onnx_i0(input):
    # Modified Bessel function I0: ATen's calc_i0 (Cephes i0), step for step in the input's
    # dtype (half/bfloat16 through float32, as ATen); even in x. The series:
    # _onnx_bessel_i_series.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.i0(input)
    x = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    compute = x if x.dtype == torch.float64 else x.float()
    t = compute.abs()
    small, large = _onnx_bessel_i_series(t, 0)
    return torch.where(t <= 8.0, torch.exp(t) * small, torch.exp(t) * large / torch.sqrt(t)).to(x.dtype)
