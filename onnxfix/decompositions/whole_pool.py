import torch


def _onnx_whole_pool(op, input, kernel_size, *args, **kwargs):
    # A pooling whose window is the input's own trailing sizes (`F.avg_pool2d(x, x.size()[2:])`,
    # `F.max_pool1d(x, x.size(2))`): a global pooling. The exporters need a window of constants:
    # torch.export specializes the dynamic sizes to the example's, the legacy exporter cannot read
    # them ("Failed to export a node ... Gather"). While exporting, a window equal to the trailing
    # sizes (the same symbols: no guard) with no padding, dilation, indices or divisor is a mean
    # (a max) over those axes, which both exporters take for any size; anything else runs the op.
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
    if not plain or input.dim() <= rank or len(window) != rank or window != tuple(input.shape[-rank:]):
        return op(input, kernel_size, *args, **kwargs)
    axes = tuple(range(-rank, 0))
    return input.amax(axes, keepdim=True) if is_max else input.mean(axes, keepdim=True)
