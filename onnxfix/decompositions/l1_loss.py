import torch


def _onnx_l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    # |input - target|, reduced, as ATen. Eager, dynamo and the deprecated arguments: the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.l1_loss(input, target, size_average, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.l1_loss(input, target, size_average, reduce, reduction)
    return _onnx_loss_reduce((input - target).abs(), reduction)
