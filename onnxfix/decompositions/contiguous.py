import torch


def _onnx_contiguous(input, memory_format=torch.contiguous_format):
    # torch.onnx's decomposition step can drop `.contiguous()` on a tensor whose contiguity
    # depends on dynamic sizes (a transposed (batch, seq, heads, dim) view), and then fails on
    # the next reshape: "Cannot view a tensor with shape ... and strides ...". A clone in that
    # memory format is always a copy, so it is never dropped: the same values. Eager keeps
    # contiguous() (it returns the tensor itself when already contiguous: an alias, not a copy).
    if not torch.onnx.is_in_onnx_export():
        return input.contiguous(memory_format=memory_format)
    return input.clone(memory_format=memory_format)
