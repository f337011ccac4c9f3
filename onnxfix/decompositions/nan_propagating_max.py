import torch


def _onnx_nan_propagating_max(op, *args, **kwargs):
    # A max or min reduction, or a max pooling, over values that hold NaN: ATen gives NaN wherever
    # the reduced values (the pooling window) hold one, onnxruntime's ReduceMax / ReduceMin /
    # MaxPool skip it (onnxruntime#10514, #24819: the answer then depends on how many NaNs there
    # are). While exporting, the op itself, then NaN where the same reduction of the input's NaN
    # mask is set. Exact: elsewhere it is the op's own value. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(*args, **kwargs)
    result = op(*args, **kwargs)
    values = args[0] if args else kwargs.get("input")
    if (not isinstance(result, torch.Tensor) or not isinstance(values, torch.Tensor)
            or not values.is_floating_point() or len(args) > 1 and isinstance(args[1], torch.Tensor)
            or isinstance(kwargs.get("other"), torch.Tensor)):
        return result  # (values, indices), integers, or an elementwise max of two tensors: as the op gives it
    rest = {k: v for k, v in kwargs.items() if k != "input"}
    # a NaN anywhere in the reduced values (the window): the reduction of the NaN mask is 1 for a
    # max; for a min, the reduction of its complement is 0
    if getattr(op, "__name__", "") in ("amin", "min"):
        marked = op((~values.isnan()).to(values.dtype), *args[1:], **rest) == 0
    else:
        marked = op(values.isnan().to(values.dtype), *args[1:], **rest) > 0
    return torch.where(marked, float("nan"), result)
