import torch


def _onnx_floor_divide(input, other):
    # torch.floor_divide rounds the quotient toward -inf; the legacy exporter writes a division
    # that truncates toward 0 (wrong for a negative quotient). div(rounding_mode="floor") is the
    # same ATen kernel in eager and exports correctly with both exporters.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.floor_divide(input, other)
    return torch.div(input, other, rounding_mode="floor")
