import torch


def _onnx_index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    # The in-place form: _onnx_index_reduce's result written back into `input` (copy_ exports
    # in both exporters), which is returned as torch does.
    return input.copy_(_onnx_index_reduce(input, dim, index, source, reduce, include_self=include_self))
