import torch


def _onnx_masked_write(tensor, mask, value):
    # `tensor[mask] = value` (a bool mask over the leading dims, or a long index of rows; a number)
    # as a new tensor, for a step torch's scan traces: its body takes no in-place write
    # ("Attempting to use FunctionalTensor on its own"). Only the export's scan step calls it; eager
    # runs the loop with the write as written. masked_fill / index_fill cast the number to the
    # tensor's dtype as the write does.
    if mask.dtype == torch.bool:
        return tensor.masked_fill(mask.reshape(mask.shape + (1,) * (tensor.dim() - mask.dim())), value)
    return tensor.index_fill(0, mask.reshape(-1), value)
