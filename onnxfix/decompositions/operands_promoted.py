import torch


def _onnx_operands_promoted(op, *args, **kwargs):
    # `op` on floating tensors of several dtypes (a float16 position times a float64 frequency in
    # torch.einsum: eager promotes them to float64): the exporters write the op with its inputs as
    # they come, and onnxruntime refuses the model ("Type parameter (T) of Optype (Einsum) bound to
    # different types"). While exporting, the floating tensors with dims are cast to the dtype
    # their promotion gives before the op, the cast eager makes inside it. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(*args, **kwargs)
    if getattr(op, "__name__", "") in _BITWISE and len(args) == 2 and not kwargs:
        # `torch.bitwise_and(packed, 15)` on uint8 (an int4-packed KV cache): eager computes in the
        # tensor's dtype, the dynamo exporter writes the number as an int8 constant and onnxruntime
        # refuses the BitwiseAnd of uint8 and int8; the number made a tensor of that dtype first
        integers = [a for a in args if isinstance(a, torch.Tensor) and not a.is_floating_point() and not a.is_complex()
                    and a.dtype != torch.bool]  # a bool tensor and a number give int64 in eager
        if len(integers) == 1 and all(isinstance(a, torch.Tensor) or _fits(a, integers[0].dtype) for a in args):
            dtype, device = integers[0].dtype, integers[0].device
            return op(*(a if isinstance(a, torch.Tensor) else torch.tensor(a, dtype=dtype, device=device) for a in args))
    # its targets (einsum, cat, stack): ops whose result eager computes in the promoted dtype of
    # their operands; torch.onnx's type promotion pass already casts those of elementwise arithmetic
    values = [*args, *kwargs.values()]
    values += [v for value in values if isinstance(value, (list, tuple)) for v in value]
    # floating tensors of several dtypes, or integer ones beside floating ones (V-JEPA 2's int64 positions
    # times float32 frequencies): eager promotes them all
    floats = {v.dtype for v in values if isinstance(v, torch.Tensor) and v.dim() and v.is_floating_point()}
    integers = {v.dtype for v in values if isinstance(v, torch.Tensor) and v.dim() and not v.is_floating_point()
                and not v.is_complex() and v.dtype != torch.bool}
    if not floats or len(floats | integers) < 2 or any(isinstance(v, torch.dtype) for v in values):
        return op(*args, **kwargs)  # one dtype, or the call names its own
    target = None
    for dtype in floats:  # an integer and a floating dtype promote to the floating one
        target = dtype if target is None else torch.promote_types(target, dtype)

    def cast(value):
        if isinstance(value, (list, tuple)):
            return type(value)(cast(v) for v in value)
        if isinstance(value, torch.Tensor) and value.dim() and value.dtype in floats | integers:
            return value.to(target)
        return value

    return op(*(cast(a) for a in args), **{k: cast(v) for k, v in kwargs.items()})


_BITWISE = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor", "__and__", "__or__", "__xor__", "__rand__",
                      "__ror__", "__rxor__"})


def _fits(value, dtype):
    # a Python int (or bool) the tensor's integer dtype holds as it is
    if not isinstance(value, int):
        return False
    info = torch.iinfo(dtype)
    return info.min <= value <= info.max

