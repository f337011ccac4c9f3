import torch


def _onnx_softplus(input, beta=1.0, threshold=20.0):
    # ATen's formula: x where x * beta > threshold, else log1p(exp(x * beta)) / beta. The legacy
    # exporter writes Softplus(x * beta) / beta and drops the threshold (wrong above it).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.softplus(input, beta, threshold)
    scaled = input * beta
    return torch.where(scaled > threshold, input, torch.log1p(torch.exp(scaled)) / beta)
