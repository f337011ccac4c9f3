import torch


def _onnx_kept_constant(op, input, other, *args, **kwargs):
    # torch.onnx.export(dynamo=True) runs onnxscript's graph optimizer, whose no-op rules take an
    # Add or Sub of a scalar constant within 1e-8 of 0, and a Mul or Div by one within a relative
    # 1e-5 of 1, for the identity (math.isclose, abs_tol=1e-8, rel_tol=1e-5, on the constant in its
    # dtype) and delete the node: `torch.log(d + 1e-9)` is exported as log(d), -inf where d is 0
    # (TPS motion's kernel, `1 / (d + 1e-8)` in a point-cloud score). The rules match 0-d constants
    # only, so while exporting such a float is given as a one-element tensor of the input's rank:
    # the same number in the dtype the op computes in, the same arithmetic, a node the optimizer
    # keeps. Other numbers and ops stay scalars. Eager runs the op.
    if (not torch.onnx.is_in_onnx_export() or args or kwargs or not isinstance(input, torch.Tensor)
            or not isinstance(other, float)):
        return op(input, other, *args, **kwargs)
    dtype = torch.result_type(input, other)
    number = torch.tensor(other, dtype=dtype).item() if dtype.is_floating_point else None
    name = getattr(op, "__name__", "").strip("_").removeprefix("r")
    if number is None or name not in ("add", "sub", "mul", "div", "truediv"):
        return op(input, other)
    if name in ("add", "sub") and not 0 < abs(number) <= 1e-8:
        return op(input, other)
    if name not in ("add", "sub") and not 0 < abs(number - 1) <= 1e-5 * max(abs(number), 1.0):
        return op(input, other)
    if input.dim() == 0:
        return op(input.reshape(1), torch.full((1,), other, dtype=dtype, device=input.device)).reshape(())
    return op(input, torch.full([1] * input.dim(), other, dtype=dtype, device=input.device))
