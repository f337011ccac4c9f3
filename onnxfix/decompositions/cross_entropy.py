import torch


def _onnx_cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                        reduction="mean", label_smoothing=0.0):
    # The dynamo exporter drops label_smoothing (it exports plain cross entropy: silently
    # wrong) and legacy refuses it. This is ATen's cross_entropy_loss_label_smoothing /
    # cross_entropy_loss_prob_target written with log_softmax, nll_loss, sums and a gather.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.cross_entropy(
            input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
    if size_average is not None or reduce is not None:  # the deprecated arguments, as torch reads them
        reduction = "none" if reduce is False else ("sum" if size_average is False else "mean")
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim]
    log_probs = torch.log_softmax(input, class_dim)
    weight_shape = [1] * input.dim()
    weight_shape[class_dim] = n_classes
    if target.is_floating_point():
        # Class probabilities: smooth the target, then -sum(p * log q) (mean over the samples).
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        terms = log_probs * target if weight is None else log_probs * target * weight.view(weight_shape)
        if reduction == "none":
            return -terms.sum(class_dim)
        if reduction == "sum":
            return -terms.sum()
        return -terms.sum() / (input.numel() / n_classes)
    if label_smoothing == 0.0:
        return torch.nn.functional.cross_entropy(input, target, weight, ignore_index=ignore_index, reduction=reduction)
    nll = torch.nn.functional.nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    ignored = target == ignore_index
    if weight is None:
        smooth = -log_probs.sum(class_dim)
    else:
        smooth = -(log_probs * weight.view(weight_shape)).sum(class_dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "none":
        smooth_total = smooth
    elif reduction == "sum":
        smooth_total = smooth.sum()
    elif weight is None:
        smooth_total = smooth.sum() / (~ignored).sum()
    else:
        # Normalised by the weights of the kept targets, as nll_loss is. torch selects them with
        # masked_select (a data-dependent size); zeroing the ignored ones sums the same values.
        safe_target = target.masked_fill(ignored, 0)
        kept_weights = weight.gather(0, safe_target.flatten()).masked_fill(ignored.flatten(), 0.0)
        smooth_total = smooth.sum() / kept_weights.sum()
    return (1 - label_smoothing) * nll + smooth_total * (label_smoothing / n_classes)
