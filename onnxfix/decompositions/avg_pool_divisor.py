import torch


def _onnx_avg_pool_divisor(op, dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override):
    # avg_pool with divisor_override: the window sums divided by the given divisor. Both exporters
    # write an AveragePool that ignores the divisor (silently wrong). Without ceil_mode every window
    # holds kernel-size cells (padding counted), so the sum is the count_include_pad mean times the
    # kernel's size; with ceil_mode the last windows are clipped, and the op is kept.
    if divisor_override is None or ceil_mode:
        return op(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    kernel = (kernel_size,) * dims if isinstance(kernel_size, int) else tuple(kernel_size)
    cells = 1
    for k in kernel:  # noqa: ONX603 - the kernel's static dims
        cells *= k
    mean = op(input, kernel_size, stride, padding, False, True)
    return mean * (cells / divisor_override)
