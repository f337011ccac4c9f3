import torch


def _onnx_float_power(input, exponent):
    # As ATen: pow computed in double precision (complex128 when either side is complex).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.float_power(input, exponent)
    complex_ = any(isinstance(v, complex) or (isinstance(v, torch.Tensor) and v.is_complex()) for v in (input, exponent))
    dtype = torch.complex128 if complex_ else torch.float64
    base = input.to(dtype) if isinstance(input, torch.Tensor) else input
    power = exponent.to(dtype) if isinstance(exponent, torch.Tensor) else exponent
    return torch.pow(base, power)
