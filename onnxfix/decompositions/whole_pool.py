import torch


def _onnx_whole_pool(op, input, kernel_size, *args, **kwargs):
    # A pooling whose window is the input's own trailing sizes (`F.avg_pool2d(x, x.size()[2:])`,
    # `F.max_pool1d(x, x.size(2))`): a global pooling. The exporters need a window of constants:
    # torch.export specializes the dynamic sizes to the example's, the legacy exporter cannot read
    # them ("Failed to export a node ... Gather"). While exporting, a window equal to the trailing
    # sizes (the same symbols: no guard) with no padding, dilation, indices or divisor is a mean
    # (a max) over those axes, which both exporters take for any size; so is a window of whole
    # axes and 1s with a stride of 1 on the 1s (`(x.size(2), 1)`: over the height, per column),
    # reduced over its whole axes; anything else runs the op.
    # Eager PyTorch runs the op itself.
    if not torch.onnx.is_in_onnx_export():
        return op(input, kernel_size, *args, **kwargs)
    name = op.__name__.lstrip("_")  # avg_pool2d, max_pool1d, ...
    rank, is_max = int(name[-2]), name.startswith("max")
    window = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size,) * (rank == 1)
    names = (("stride", "padding", "dilation", "ceil_mode", "return_indices") if is_max
             else ("stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"))
    options = {**dict(zip(names, args)), **kwargs}

    def every(value, number):
        return all(v == number for v in (value if isinstance(value, (tuple, list)) else (value,)))

    plain = (every(options.get("padding", 0), 0) and every(options.get("dilation", 1), 1)
             and not options.get("return_indices", False) and options.get("divisor_override") is None)
    if not plain or input.dim() <= rank or len(window) != rank:
        return op(input, kernel_size, *args, **kwargs)
    stride = options.get("stride") or window  # None or []: the window
    strides = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,) * rank
    # an axis of a literal 1 (a Python int, not a traced size that is 1 in the example) with a
    # stride of 1 is kept as it is; a window axis equal to the input's (the same symbol: no
    # guard) is reduced whatever its stride; anything else runs the op
    kept = [type(size) is int and size == 1 and step == 1 for size, step in zip(window, strides)]
    whole = [not k and size == axis for k, size, axis in zip(kept, window, input.shape[-rank:])]
    if len(strides) != rank or not any(whole) or not all(w or k for w, k in zip(whole, kept)):
        return op(input, kernel_size, *args, **kwargs)
    axes = tuple(i - rank for i in range(rank) if whole[i])
    return input.amax(axes, keepdim=True) if is_max else input.mean(axes, keepdim=True)
