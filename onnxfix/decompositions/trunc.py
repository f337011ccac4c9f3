import torch


def _onnx_trunc(input):
    # Rounds toward zero: ceil below 0, floor above (the legacy exporter has no symbolic for
    # aten::trunc). NaN and inf stay as they are; integer tensors are their own truncation.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.trunc(input)
    if not input.is_floating_point():
        return input.clone()
    return torch.where(input < 0, torch.ceil(input), torch.floor(input))
