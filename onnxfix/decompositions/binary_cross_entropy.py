import torch


def _onnx_binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    # -(t log x + (1 - t) log(1 - x)), each log clamped at -100, times weight, reduced, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.binary_cross_entropy(input, target, weight, size_average, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.binary_cross_entropy(input, target, weight, size_average, reduce, reduction)
    values = -(target * torch.clamp(torch.log(input), min=-100) + (1 - target) * torch.clamp(torch.log(1 - input), min=-100))
    return _onnx_loss_reduce(values if weight is None else values * weight, reduction)
