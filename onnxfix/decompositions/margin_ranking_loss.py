import torch


def _onnx_margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    # max(0, -target (input1 - input2) + margin), reduced, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.margin_ranking_loss(input1, input2, target, margin, size_average, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.margin_ranking_loss(input1, input2, target, margin, size_average, reduce, reduction)
    return _onnx_loss_reduce(torch.clamp(-target * (input1 - input2) + margin, min=0), reduction)
