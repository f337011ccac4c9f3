import torch


def _onnx_ravel(input):
    # reshape(-1), as ATen (the legacy exporter has no symbolic for aten::ravel).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.ravel(input)
    return input.reshape(-1)
