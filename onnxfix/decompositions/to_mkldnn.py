import torch


def _onnx_to_mkldnn(input, dtype=None):
    # A copy in the MKL-DNN layout, an opaque tensor neither exporter can trace: while exporting,
    # a dense copy of the same values instead (a later to_dense() of a dense tensor is the tensor
    # itself); the ops after it run their dense kernels there, which may round otherwise.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself
        return input.to_mkldnn() if dtype is None else input.to_mkldnn(dtype)
    return input.clone() if dtype is None else input.to(dtype, copy=True)
