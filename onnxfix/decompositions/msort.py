import torch


def _onnx_msort(input):
    # msort is sort along the first dimension (values only); NaN sorts last, as in torch.
    return torch.sort(input, dim=0).values
