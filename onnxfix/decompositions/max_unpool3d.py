import torch


def _onnx_max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # The 2-D helper over depth and height merged (requires _onnx_max_unpool2d): a 3-D flat index
    # d * H * W + h * W + w is the 2-D one of a (D * H, W) plane, so one scatter into zeros of the
    # output size (_onnx_max_unpool_size). The legacy exporter has no symbolic for
    # aten::max_unpool3d (3-D SegNets). Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.max_unpool3d(input, indices, kernel_size, stride, padding, output_size)
    size = _onnx_max_unpool_size(input, kernel_size, stride, padding, output_size, 3)
    plane = input.reshape(tuple(input.shape[:-3]) + (input.shape[-3] * input.shape[-2], input.shape[-1]))
    out = _onnx_max_unpool2d(plane, indices.reshape(plane.shape), 1, 1, 0, (size[0] * size[1], size[2]))
    return out.reshape(tuple(input.shape[:-3]) + size)
