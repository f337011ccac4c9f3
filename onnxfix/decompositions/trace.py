import torch


def _onnx_trace(input):
    # Sum of the main diagonal of a 2-D tensor (integers sum to int64, as torch.trace).
    return torch.diagonal(input).sum()
