import torch


def _onnx_div_rounded(input, other, *, rounding_mode=None, out=None):
    # torch.div with rounding_mode="floor" or "trunc" on floats, which both exporters translate with
    # other arithmetic than ATen's: a floor of the plain quotient (1 too high where it rounds onto a
    # whole number; ATen divides the numerator less its fmod remainder), and a half-precision quotient
    # truncated before it is rounded to half (ATen rounds it first). While exporting, ATen's own
    # arithmetic: the floor as floor_divide's helper computes it, the truncation of the quotient rounded
    # to the result's dtype. Integer quotients and eager keep the op.
    if not torch.onnx.is_in_onnx_export() or out is not None or rounding_mode is None:
        return torch.div(input, other, rounding_mode=rounding_mode, out=out)
    if not torch.result_type(input, other).is_floating_point:
        return torch.div(input, other, rounding_mode=rounding_mode)
    if rounding_mode == "floor":
        return _onnx_floor_divide(input, other)
    dtype = torch.result_type(input, other)
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    quotient = torch.as_tensor(input, dtype=wide) / torch.as_tensor(other, dtype=wide)
    # rounded to the result's dtype first, as ATen does (onnxruntime computes half ops in float and
    # would carry the wider quotient on), then its floor or ceiling toward zero: exact, where the legacy
    # exporter has no trunc and the dynamo exporter's trunc computes wider than half
    quotient = quotient.to(dtype).to(wide)
    return torch.where(quotient < 0, torch.ceil(quotient), torch.floor(quotient)).to(dtype)
