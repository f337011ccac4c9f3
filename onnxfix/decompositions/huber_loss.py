import torch


def _onnx_huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    # 0.5 d^2 where d = |input - target| < delta, else delta (d - 0.5 delta), reduced, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.huber_loss(input, target, reduction, delta, weight=weight)
    if weight is not None:
        return torch.nn.functional.huber_loss(input, target, reduction, delta, weight=weight)
    d = (input - target).abs()
    return _onnx_loss_reduce(torch.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction)
