import torch


def _onnx_strides(input):
    # input.stride(): Python ints, which the legacy exporter's tracer records as constants of the
    # export-time sizes (it traces the sizes themselves) and the dynamo exporter writes as
    # aten.sym_stride, which torch.onnx cannot translate. A contiguous tensor's strides are the
    # products of its trailing sizes: computed from those sizes (traced, or symbolic) while either
    # exporter traces; input.stride() itself in eager and for a non-contiguous tensor.
    if not (torch.jit.is_tracing() or torch.compiler.is_exporting()) or not input.is_contiguous():
        return input.stride()
    strides = []
    step = 1
    for size in reversed(input.shape):
        strides.append(step)
        step = step * size
    return tuple(reversed(strides))
