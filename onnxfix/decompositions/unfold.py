import torch


def _onnx_unfold(input, dimension, size, step):
    # Tensor.unfold as a gather: window w along `dimension` holds input[w * step + j], j < size,
    # with (length - size) // step + 1 windows and the window axis appended last, as torch. The
    # legacy exporter translates unfold only for a static length ("input size not accessible");
    # here the length stays a graph value. Eager and dynamo keep the op (a view: the gather is a
    # copy, and a write into the windows must still reach `input`).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return input.unfold(dimension, size, step)
    if input.dim() == 0:
        return input.unfold(dimension, size, step)
    dim = dimension % input.dim()
    count = (input.shape[dim] - size) // step + 1
    starts = torch.arange(count, device=input.device) * step
    index = (starts.unsqueeze(1) + torch.arange(size, device=input.device)).reshape(-1)
    windows = input.index_select(dim, index)
    shape = input.shape[:dim] + (count, size) + input.shape[dim + 1:]
    return windows.reshape(shape).movedim(dim + 1, -1)
