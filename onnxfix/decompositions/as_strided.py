import torch


def _onnx_as_strided(input, size, stride, storage_offset=None):
    # torch.as_strided of a contiguous tensor with sizes, strides or an offset the legacy exporter
    # traces (a conformer's relative shift, `x.as_strided(..., storage_offset=n_stride * (time1 - 1))`),
    # which its symbolic takes only as constants. While it traces: the elements at offset +
    # sum(i_k * stride_k) gathered from the tensor flattened (its storage, contiguous from offset 0),
    # a copy of the same values. torch.as_strided itself in eager, under torch.export and for a
    # view of other storage.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():
        return torch.as_strided(input, size, stride, storage_offset)
    if not input.is_contiguous() or input.storage_offset() != 0:
        return torch.as_strided(input, size, stride, storage_offset)
    index = torch.zeros((), dtype=torch.int64) if storage_offset is None else torch.as_tensor(storage_offset)
    rank = len(size)
    for k in range(rank):
        steps = torch.arange(size[k]) * stride[k]
        index = index + steps.view([-1 if j == k else 1 for j in range(rank)])
    return input.reshape(-1)[index]
