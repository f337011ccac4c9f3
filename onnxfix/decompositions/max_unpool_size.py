import torch


def _onnx_max_unpool_size(input, kernel_size, stride, padding, output_size, dims):
    # The spatial sizes of F.max_unpool{dims}d's output: the last `dims` of output_size, else
    # torch's default (in - 1) * stride - 2 * padding + kernel along each of the input's last `dims`.
    if output_size is not None:
        return tuple(output_size)[-dims:]

    def spatial(value):
        return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims

    kernel = spatial(kernel_size)
    step = kernel if stride is None else spatial(stride)
    pad = spatial(padding)
    return tuple((input.shape[i - dims] - 1) * step[i] - 2 * pad[i] + kernel[i] for i in range(dims))
