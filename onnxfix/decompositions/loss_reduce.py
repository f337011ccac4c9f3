import torch


def _onnx_loss_reduce(values, reduction):
    # A loss's reduction: "none" keeps the elements, "mean" and "sum" as torch's.
    if reduction == "none":
        return values
    return values.mean() if reduction == "mean" else values.sum()
