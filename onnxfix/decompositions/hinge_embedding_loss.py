import torch


def _onnx_hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    # input where target is not -1, plus max(0, margin - input) where target is not 1, reduced,
    # as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.hinge_embedding_loss(input, target, margin, size_average, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.hinge_embedding_loss(input, target, margin, size_average, reduce, reduction)
    zeros = torch.zeros_like(input)
    values = torch.where(target != 1, torch.clamp(margin - input, min=0), zeros) + torch.where(target != -1, input, zeros)
    return _onnx_loss_reduce(values, reduction)
