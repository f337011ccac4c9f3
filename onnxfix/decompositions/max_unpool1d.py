import torch


def _onnx_max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # The 2-D helper over a height of 1 (requires _onnx_max_unpool2d): a 1-D index along the
    # length is the flat index of a row of height 1. The legacy exporter has no symbolic for
    # aten::max_unpool1d. Eager and dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.max_unpool1d(input, indices, kernel_size, stride, padding, output_size)

    def single(value):
        return value[0] if isinstance(value, (tuple, list)) else value

    stride = kernel_size if stride is None else stride
    size = None if output_size is None else (1, tuple(output_size)[-1])
    out = _onnx_max_unpool2d(input.unsqueeze(-2), indices.unsqueeze(-2), (1, single(kernel_size)), (1, single(stride)),
                             (0, single(padding)), size)
    return out.squeeze(-2)
