import torch


def _onnx_addcdiv(input, tensor1, tensor2, *, value=1):
    # input + (value * tensor1) / tensor2, ATen's order (the legacy exporter has no symbolic).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.addcdiv(input, tensor1, tensor2, value=value)
    return input + value * tensor1 / tensor2
