import torch


def _onnx_cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    # ATen's formula: cos = sum(x1 x2) / sqrt((sum(x1^2) + 1e-12) (sum(x2^2) + 1e-12)) over the
    # last dimension; 1 - cos where target is 1, max(0, cos - margin) where it is -1, reduced.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.cosine_embedding_loss(input1, input2, target, margin, size_average, reduce,
                                                         reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.cosine_embedding_loss(input1, input2, target, margin, size_average, reduce,
                                                         reduction)
    cos = (input1 * input2).sum(-1) / torch.sqrt(((input1 * input1).sum(-1) + 1e-12) * ((input2 * input2).sum(-1) + 1e-12))
    zeros = torch.zeros_like(cos)
    values = torch.where(target == 1, 1 - cos, zeros) + torch.where(target == -1, torch.clamp(cos - margin, min=0), zeros)
    return _onnx_loss_reduce(values, reduction)
