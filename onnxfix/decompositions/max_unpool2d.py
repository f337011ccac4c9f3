import torch


def _onnx_max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # F.max_unpool2d (SegNet-style decoders) as one scatter: each pooled value is written at the
    # flat position max_pool2d(..., return_indices=True) recorded, into zeros of the output size
    # (_onnx_max_unpool_size). The legacy exporter has no symbolic for aten::max_unpool2d. Eager
    # and dynamo keep the op (repeated indices: either write may win, in ATen as in a scatter).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.max_unpool2d(input, indices, kernel_size, stride, padding, output_size)
    size = _onnx_max_unpool_size(input, kernel_size, stride, padding, output_size, 2)
    rows = input.reshape((-1,) + tuple(input.shape[-2:])).flatten(1)
    total = 1
    for extent in size:
        total = total * extent
    out = rows.new_zeros(rows.shape[0], total).scatter(1, indices.reshape(rows.shape), rows)
    return out.reshape(tuple(input.shape[:-2]) + size)
