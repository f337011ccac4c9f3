import torch


def _onnx_float32_compute(op, *args, **kwargs):
    # `op` (a convolution, a matmul, an LSTM, an add) on float64 or bfloat16 tensors, for which
    # onnxruntime's CPU provider has no kernel (NOT_IMPLEMENTED: Conv in double, MatMul or Add in
    # bfloat16): while exporting, the tensors of that dtype (also inside lists: an LSTM's weights)
    # are cast to float32, the op runs, and its float32 results are cast back, so the exported
    # graph holds float32 nodes between Casts. The exported model rounds as float32 there; eager
    # PyTorch runs the op itself. Integer tensors the same way, exactly (_onnx_int64_compute).
    if not torch.onnx.is_in_onnx_export():
        return op(*args, **kwargs)
    name = getattr(op, "__name__", "")
    if (name in _CAST_FIRST and isinstance(kwargs.get("dtype"), torch.dtype) and args
            and isinstance(args[0], torch.Tensor) and not args[0].is_floating_point()
            and not args[0].is_complex() and args[0].dtype != kwargs["dtype"]):
        # `img.mean(dim=..., dtype=torch.float32)` of a uint8 image: ATen casts the integers to the
        # dtype and reduces those; torch.onnx reduces the uint8 input (no ReduceMean kernel) first
        return op(args[0].to(kwargs["dtype"]), *args[1:], **kwargs)
    values = [*args, *kwargs.values()]
    values += [v for value in values if isinstance(value, (list, tuple)) for v in value]
    dtypes = {v.dtype for v in values if isinstance(v, torch.Tensor)}
    half = [v for v in values if isinstance(v, torch.dtype) and v in (torch.float16, torch.bfloat16)]
    bounds = [v for v in values if not isinstance(v, (torch.dtype, torch.device, str, type(None)))]
    if (half and not any(d.is_floating_point for d in dtypes) and name == "arange"
            and all(isinstance(v, (int, torch.SymInt)) or (isinstance(v, torch.Tensor) and not v.is_floating_point())
                    for v in bounds)):
        # a half-precision arange becomes an ONNX Range, which onnxruntime has no float16 or
        # bfloat16 kernel for. Integer bounds only: the points are integers, computed exactly in
        # float32 and rounded once to the half type (exact up to 2048; above, where ATen's own
        # half arithmetic may round otherwise, the export is kept only if it matches eager). A
        # fractional step is left to the op: ATen rounds the step to half precision first.
        as_float = [torch.float32 if v is half[0] else v for v in args]
        return op(*as_float, **{k: torch.float32 if v is half[0] else v for k, v in kwargs.items()}).to(half[0])
    if half == [torch.bfloat16] and not dtypes and name in (
            "full", "zeros", "ones", "empty"):
        # a bfloat16 tensor made from numbers (the causal mask's `torch.full(..., finfo.min,
        # dtype=torch.bfloat16)`: an Expand onnxruntime has no bfloat16 kernel for): made in float32,
        # then cast. bfloat16 keeps float32's exponent and the top of its mantissa, so a value
        # bfloat16 holds (0, 1, finfo's min and max) is the same; another fill value is rounded
        # twice (to float32, then to bfloat16): the export is kept only if it matches eager.
        as_float = [torch.float32 if v is half[0] else v for v in args]
        return op(*as_float, **{k: torch.float32 if v is half[0] else v for k, v in kwargs.items()}).to(half[0])
    drawn = _half_draw(op, name, args, kwargs)
    if drawn is not None:
        return drawn
    # selections onnxruntime's CPU provider has no bool kernel of (Where with bool values, Max / Min):
    # the function forms with positional arguments only (a method's first argument is not the condition)
    selected = (args[1:] if op is torch.where else args) if not kwargs and op in (
        torch.where, torch.maximum, torch.minimum, torch.fmax, torch.fmin) and len(args) in (2, 3) else ()
    if not kwargs and op in _BINARY_MIN_MAX and len(args) == 2 and all(isinstance(a, torch.Tensor) for a in args):
        selected = args  # torch.min(a, b) / a.max(b): the elementwise overload (a dim is a number)
    if (not kwargs and name in _BOOL_ARITHMETIC and len(args) == 2
            and all(isinstance(a, torch.Tensor) and a.dtype == torch.bool for a in args)):
        selected = args  # a sum or product of masks (ONNX Add / Mul take no bool): an or / an and
    if (len(selected) == 2 and any(isinstance(v, torch.Tensor) for v in selected)
            and torch.result_type(*selected) == torch.bool):
        return _onnx_bool_compute(op, args)
    if _bool_masked_fill(name, args, kwargs):
        return _onnx_bool_compute(op, args, keep=1)  # the mask says where: it stays bool
    if (name in _BOOL_REDUCTIONS and "out" not in kwargs and args and isinstance(args[0], torch.Tensor)
            and args[0].dtype == torch.bool):
        # the largest or smallest of a mask along a dim, and where (LoFTR's mutual-nearest
        # `mask.max(dim=2)`): onnxruntime has no ArgMax / ReduceMax kernel for bool. On uint8 0 / 1
        # the same maxima at the same indices; the values read back as bool
        return _onnx_bool_compute(op, args, kwargs)
    if (name in ("pixel_shuffle", "pixel_unshuffle") and len(args) == 2 and not kwargs and isinstance(args[0], torch.Tensor)
            and not args[0].is_floating_point() and not args[0].is_complex()):
        # integer or bool codes rearranged (a quantized head's pixel_shuffle): ONNX DepthToSpace /
        # SpaceToDepth have float kernels only in onnxruntime (int64 neither). torch's own definition
        # instead, a reshape, a permutation and a reshape: the same elements moved, for any dtype
        return _onnx_pixel_shuffle(*args) if name == "pixel_shuffle" else _onnx_unshuffled(*args)
    gap = dtypes & {torch.float64, torch.bfloat16}
    if not gap and torch.float16 in dtypes and name.rstrip("_") in _HALF_ACCUMULATING:
        # a float16 scatter or index add / put that accumulates: onnxruntime's CPU ScatterElements
        # and ScatterND take no float16 with a reduction ("MLFloat16 data type is not supported")
        gap = {torch.float16}
    if not gap and dtypes and not any(d.is_floating_point or d.is_complex or d == torch.bool for d in dtypes):
        return _promoted_to_float(op, dtypes, args, kwargs, _onnx_int64_compute(op, dtypes, args, kwargs))
    if len(gap) != 1 or name in _RESHAPED_IN_PLACE or "out" in kwargs:
        return op(*args, **kwargs)  # `x.unsqueeze_(0)` changes a shape, `out=` a tensor it is given: no values computed
    (dtype,) = gap
    if dtype != torch.bfloat16 and name in ("expand", "expand_as"):
        return op(*args, **kwargs)  # copies only: float64 has the kernel, and a round trip would round
    # the dtype torch's own call returns: the promotion of the floating inputs (bfloat16 with
    # float32 gives float32, float64 with float32 float64); an explicit dtype argument decides itself
    floats = [v.dtype for v in values if isinstance(v, torch.Tensor) and v.is_floating_point()]
    result = floats[0]
    for other in floats[1:]:
        result = torch.promote_types(result, other)
    explicit = any(isinstance(v, torch.dtype) for v in values)

    def cast(value):
        if isinstance(value, (list, tuple)):
            return type(value)(cast(v) for v in value)
        return value.float() if isinstance(value, torch.Tensor) and value.dtype == dtype else value

    def back(value):
        if isinstance(value, (list, tuple)):
            return type(value)(back(v) for v in value)
        return value.to(result) if isinstance(value, torch.Tensor) and value.dtype == torch.float32 else value

    computed = op(*(cast(a) for a in args), **{k: cast(v) for k, v in kwargs.items()})
    if not (explicit or result == torch.float32):
        computed = back(computed)
    if _in_place(name) and args and isinstance(args[0], torch.Tensor) and isinstance(computed, torch.Tensor):
        # in place (`pooled.index_add_(0, ids, h)`, `x32.add_(y64)`): the op wrote a float32 copy;
        # the tensor the model holds gets its values in its own dtype, as the op would have written them
        return args[0].copy_(computed)
    return computed


def _half_draw(op, name, args, kwargs):
    # a random draw in a half type (`torch.randn(m.size(), dtype=m.dtype)` in a model converted to
    # float16: a VITS prior's noise): onnxruntime's CPU provider has no kernel for the float16 or
    # bfloat16 draw torch.onnx writes for a factory, nor for a bfloat16 rand_like / randn_like (a
    # float16 one runs: left alone). Drawn in float32 and cast: no export draws what PyTorch's
    # generator draws anyway, and the verification compares no sampled output
    # (verify._random_not_compared), only the rest of the model.
    if name in _RANDOM_LIKE and args and isinstance(args[0], torch.Tensor):
        target = kwargs.get("dtype") or args[0].dtype
        if target == torch.bfloat16:
            return _on_half_grid(name, op(*args, **{**kwargs, "dtype": torch.float32}), target)
    if name in _RANDOM_FACTORIES and kwargs.get("dtype") in (torch.float16, torch.bfloat16):
        return _on_half_grid(name, op(*args, **{**kwargs, "dtype": torch.float32}), kwargs["dtype"])
    return None


def _on_half_grid(name, drawn, target):
    # a float32 uniform draw cast to a half type would round up to 1.0 now and then (1 in 4,000 for
    # float16); ATen's half uniform draws stay below 1 (at most 1 - 2**-11 for float16, 1 - 2**-8 for
    # bfloat16): the float32 draw is floored onto the grid of that step first (exact in float32), then cast
    if name.startswith("randn"):
        return drawn.to(target)
    steps = float(2 ** _HALF_GRID_BITS[target])
    return (torch.floor(drawn * steps) / steps).to(target)


_HALF_GRID_BITS = {torch.float16: 11, torch.bfloat16: 8}  # the half type's mantissa bits + 1


_RANDOM_FACTORIES = frozenset({"rand", "randn"})
_RANDOM_LIKE = frozenset({"rand_like", "randn_like"})


def _in_place(name):
    return (name.endswith("_") and not name.startswith("_")) or name in _AUGMENTED


_AUGMENTED = frozenset(f"__i{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                               "and", "or", "xor", "lshift", "rshift"))
_RESHAPED_IN_PLACE = frozenset({"unsqueeze_", "squeeze_", "t_", "transpose_", "swapdims_", "swapaxes_", "resize_",
                                "resize_as_", "as_strided_", "set_"})
_HALF_ACCUMULATING = frozenset({"scatter_add", "scatter_reduce", "scatter", "index_add", "index_put", "index_reduce"})
_BOOL_ARITHMETIC = frozenset({"add", "add_", "mul", "mul_", "__add__", "__radd__", "__iadd__", "__mul__", "__rmul__", "__imul__"})
_BINARY_MIN_MAX = (torch.min, torch.max, torch.Tensor.min, torch.Tensor.max, torch.Tensor.minimum, torch.Tensor.maximum)


def _promoted_to_float(op, dtypes, args, kwargs, result):
    # an op ATen computes in the default float dtype on integer inputs (exp, atan2, sqrt: its
    # TensorIterator casts them first): the legacy exporter writes it on the integers (an Exp of int32,
    # an invalid ONNX graph). Computed again on the inputs cast as ATen casts them, the same values; the
    # first result is left unused (both exporters drop the dead node)
    if (not isinstance(result, torch.Tensor) or not result.is_floating_point() or "out" in kwargs
            or getattr(op, "__name__", "") in _SIZED_FACTORIES
            or any(isinstance(v, torch.dtype) for v in [*args, *kwargs.values()])):
        return result

    def promoted(value):
        return value.to(result.dtype) if isinstance(value, torch.Tensor) and value.dtype in dtypes else value

    return op(*(promoted(a) for a in args), **{k: promoted(v) for k, v in kwargs.items()})


def _onnx_int64_compute(op, dtypes, args, kwargs):
    # `op` on integer tensors only, which onnxruntime's CPU provider has no kernel for in that
    # type (Unique and TopK in int32, Relu in any integer type, Gemm): relu is clamp(min=0), exact for
    # integers; an addmm is a MatMul and an Add; on int32 / int16 / int8 / uint8 tensors the op runs on them widened to int64 and
    # its values are narrowed back (two's complement: sums and products wrap alike); indices and
    # counts (int64 in eager too) are kept. Other ops run as they are.
    name = getattr(op, "__name__", "")
    if name == "relu" and not kwargs.get("inplace") and len(args) == 1:  # in place: the op writes its input
        return torch.clamp(args[0], min=0)
    if name in _MATMUL_ADDS and len(args) == 3 and set(kwargs) <= {"beta", "alpha"}:
        # an integer addmm / addmv / baddbmm / addbmm: ONNX Gemm has no integer kernel in
        # onnxruntime; `beta * input + alpha * product` from a MatMul, which has. Integer sums and
        # products wrap alike in any order (the same integers as ATen's), so exact
        product = torch.matmul(args[1], args[2])
        if name == "addbmm":
            product = product.sum(0)
        beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
        scaled = product if alpha == 1 else product * alpha
        if beta == 0:  # ATen ignores the input then
            return scaled
        return (args[0] if beta == 1 else args[0] * beta) + scaled
    wide = dtypes & {torch.int64, torch.int32, torch.int16}
    if "max_pool" in name and len(wide) == 1:
        # ONNX MaxPool takes floats, int8 and uint8 only (an int64 label map downsampled): pooled in
        # float64, whose maxima are the integers themselves below 2**53 in magnitude, then cast back
        (integer,) = wide
        result = op(*(a.double() if isinstance(a, torch.Tensor) and a.dtype == integer else a for a in args), **kwargs)
        if isinstance(result, tuple):  # (values, indices)
            return type(result)((result[0].to(integer), *result[1:]))
        return result.to(integer)
    narrow = dtypes & {torch.int32, torch.int16, torch.int8, torch.uint8}
    if len(narrow) != 1 or name in ("argmax", "argmin", "argsort", "nonzero", "searchsorted", "bucketize",
                                    "bincount", "count_nonzero", "histc", "__getitem__", "__setitem__"):
        return op(*args, **kwargs)
    (dtype,) = narrow

    def widen(value):
        if isinstance(value, (list, tuple)):
            return type(value)(widen(v) for v in value)
        return value.long() if isinstance(value, torch.Tensor) and value.dtype == dtype else value

    result = op(*(widen(a) for a in args), **{k: widen(v) for k, v in kwargs.items()})
    first = result[0] if isinstance(result, tuple) else result  # (values, indices or counts)
    if not isinstance(first, torch.Tensor) or first.dtype != torch.int64:
        return result
    if name.rstrip("_") in _INT64_RESULTS and "dtype" not in kwargs:
        return result  # a sum or product of integers is int64 in eager too (a uint8 mask's cumsum)
    narrowed = first.to(dtype)
    return type(result)((narrowed, *result[1:])) if isinstance(result, tuple) else narrowed


# reductions and scans ATen computes in int64 for any integer input without a dtype
_INT64_RESULTS = frozenset({"sum", "prod", "cumsum", "cumprod", "nansum"})
# reductions taking a dtype= to compute in, which ATen casts an integer input to first
_CAST_FIRST = frozenset({"mean", "nanmean", "sum", "nansum", "prod", "cumsum", "cumprod"})
_MATMUL_ADDS = frozenset({"addmm", "addmv", "baddbmm", "addbmm"})
# reductions and scans to a largest or smallest element (and its index): no bool kernels in onnxruntime
_BOOL_REDUCTIONS = frozenset({"max", "min", "amax", "amin", "aminmax", "cummax", "cummin"})
# factories whose integer arguments are sizes, not operands: the legacy tracer hands them a size
# read off a traced shape as a 0-dim int64 tensor (`torch.eye(x.shape[1])`), which must stay an integer
_SIZED_FACTORIES = frozenset({"eye", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
                              "linspace", "logspace", "empty_strided", "new_zeros", "new_ones", "new_empty",
                              "new_full", "tril_indices", "triu_indices", "hann_window", "hamming_window",
                              "blackman_window", "bartlett_window", "kaiser_window"})


def _bool_masked_fill(name, args, kwargs) -> bool:
    # `causal.masked_fill(pad, True)` on a bool mask (any spelling: torch.masked_fill, the method, in
    # place): torch.onnx writes a Where between bool values, which onnxruntime has no kernel for
    return (not kwargs and name in ("masked_fill", "masked_fill_") and len(args) == 3
            and isinstance(args[0], torch.Tensor) and args[0].dtype == torch.bool
            and isinstance(args[1], torch.Tensor) and args[1].dtype == torch.bool
            and (isinstance(args[2], bool) or isinstance(args[2], torch.Tensor) and args[2].dtype == torch.bool))


def _onnx_bool_compute(op, args, kwargs=None, keep=None):
    # `op` on bool values onnxruntime has no bool kernel for (a mask built with torch.where(keep,
    # causal, False), merged with masked_fill, reduced with max): the values run as uint8 (0 / 1, a
    # Python bool as the int it equals) and the results are read back as bool, the same truth values
    # (indices unchanged); the argument at position ``keep`` (a where's condition, a masked_fill's
    # mask) stays bool. In place, the tensor the model holds gets the values.
    def byte(value):
        if isinstance(value, torch.Tensor) and value.dtype == torch.bool:
            return value.to(torch.uint8)
        return int(value) if isinstance(value, bool) else value

    def back(value):
        return value.bool() if isinstance(value, torch.Tensor) and value.dtype == torch.uint8 else value

    if op is torch.where:
        keep = 0
    name = getattr(op, "__name__", "")
    values = [a if i == keep else byte(a) for i, a in enumerate(args)]
    if name in _BOOL_ARITHMETIC:  # a bool sum saturates at True (1 + 1 is 2 in uint8) and a product is an and
        result = (torch.add if "add" in name else torch.mul)(*values)  # both commute: `__radd__` too
    else:
        result = op(*values, **(kwargs or {}))
    result = type(result)(back(v) for v in result) if isinstance(result, tuple) else back(result)
    return args[0].copy_(result) if _in_place(name) else result


def _onnx_unshuffled(x, r):
    # pixel_unshuffle as torch defines it, the reverse of _onnx_pixel_shuffle's rearrangement:
    # (*, C, H * r, W * r) -> (*, C, H, r, W, r) -> (*, C, r, r, H, W) -> (*, C * r * r, H, W)
    batch, (channels, height, width) = x.shape[:-3], x.shape[-3:]
    lead = len(batch)
    split = x.reshape(*batch, channels, height // r, r, width // r, r)
    order = (*range(lead), lead, lead + 2, lead + 4, lead + 1, lead + 3)
    return split.permute(order).reshape(*batch, channels * r * r, height // r, width // r)
