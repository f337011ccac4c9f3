import torch


def _onnx_argwhere(input):
    # torch.nonzero(input), which is what ATen's argwhere returns (the legacy exporter has a
    # symbolic for nonzero, none for argwhere).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.argwhere(input)
    return torch.nonzero(input)
