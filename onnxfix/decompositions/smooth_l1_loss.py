import torch


def _onnx_smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    # 0.5 d^2 / beta where d = |input - target| < beta, else d - 0.5 beta (d itself for beta 0),
    # reduced, as ATen. Eager, dynamo and the deprecated arguments: the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.smooth_l1_loss(input, target, size_average, reduce, reduction, beta)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.smooth_l1_loss(input, target, size_average, reduce, reduction, beta)
    d = (input - target).abs()
    values = d if beta == 0 else torch.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return _onnx_loss_reduce(values, reduction)
