import torch


def _onnx_soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    # log(1 + exp(-target input)), reduced, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.soft_margin_loss(input, target, size_average, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.soft_margin_loss(input, target, size_average, reduce, reduction)
    return _onnx_loss_reduce(torch.log1p(torch.exp(-target * input)), reduction)
