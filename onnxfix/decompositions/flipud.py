import torch


def _onnx_flipud(input):
    # flip along dimension 0, as ATen (the legacy exporter has no symbolic for aten::flipud).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.flipud(input)
    return input.flip(0)
