import torch


def _onnx_fliplr(input):
    # flip along dimension 1, as ATen (the legacy exporter has no symbolic for aten::fliplr).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.fliplr(input)
    return input.flip(1)
