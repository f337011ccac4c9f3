import torch


def _onnx_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, size_average=None,
                              reduce=None, reduction="mean"):
    # max(0, margin + d(a, p) - d(a, n)), d the pairwise distance ||x - y + eps||_p (with swap,
    # d(a, n) is min(d(a, n), d(p, n))), reduced, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, size_average,
                                                       reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, size_average,
                                                       reduce, reduction)
    d_pos = _onnx_pairwise_distance(anchor, positive, p, eps)
    d_neg = _onnx_pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, _onnx_pairwise_distance(positive, negative, p, eps))
    return _onnx_loss_reduce(torch.clamp(margin + d_pos - d_neg, min=0), reduction)
