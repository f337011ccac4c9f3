import torch


def _onnx_kept_constant(op, input, other, *args, **kwargs):
    # torch.onnx.export(dynamo=True) runs onnxscript's graph optimizer, whose no-op rules take an
    # Add or Sub of a scalar constant within 1e-8 of 0, and a Mul or Div by one within a relative
    # 1e-5 of 1, for the identity (math.isclose, abs_tol=1e-8, rel_tol=1e-5) and delete the node:
    # `torch.log(d + 1e-9)` is exported as log(d), -inf where d is 0 (TPS motion's kernel,
    # `1 / (d + 1e-8)` in a point-cloud score). The rules match 0-d constants only, so while
    # exporting such a float is given as a one-element tensor of the input's rank: the same number
    # in the input's dtype, the same arithmetic, a node the optimizer keeps. Eager runs the op.
    if (not torch.onnx.is_in_onnx_export() or args or kwargs or not isinstance(input, torch.Tensor)
            or not isinstance(other, float) or input.dtype not in (torch.float32, torch.float64)):
        return op(input, other, *args, **kwargs)
    if input.dim() == 0:
        return op(input.reshape(1), torch.full((1,), other, dtype=input.dtype, device=input.device)).reshape(())
    return op(input, torch.full([1] * input.dim(), other, dtype=input.dtype, device=input.device))
