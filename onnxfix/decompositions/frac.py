import torch


def _onnx_frac(input):
    # As ATen: x - trunc(x) (keeps the sign of x; NaN and inf give NaN). trunc is written as
    # ceil below 0 and floor above (the legacy exporter has no symbolic for aten::trunc).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.frac(input)
    return input - torch.where(input < 0, torch.ceil(input), torch.floor(input))
