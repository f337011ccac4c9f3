import torch


def _onnx_diagflat(input, offset=0):
    # the flattened input on the offset diagonal of a square matrix, as ATen: diag of the
    # flattened input (with _onnx_diag, which the legacy exporter can export).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.diagflat(input, offset)
    return _onnx_diag(input.reshape(-1), offset)
