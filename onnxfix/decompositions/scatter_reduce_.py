import torch


def _onnx_scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    # The in-place form: the same computation as _onnx_scatter_reduce, written back into
    # `input` (copy_ exports in both exporters), which is returned as torch does.
    return input.copy_(_onnx_scatter_reduce(input, dim, index, src, reduce, include_self=include_self))
