import torch


def _onnx_threshold(input, threshold, value, inplace=False):
    # value where x <= threshold, else x (NaN stays NaN: NaN <= threshold is False), as ATen. The
    # legacy exporter translates only a threshold of 0 (a Relu).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.threshold(input, threshold, value, inplace)
    result = torch.where(input <= threshold, torch.full_like(input, value), input)
    return input.copy_(result) if inplace else result
