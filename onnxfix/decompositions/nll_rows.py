import torch


def _onnx_nll_rows(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    # nll_loss of a data-dependent number of rows (the pixels a boolean mask keeps: AdaptSegNet's
    # CrossEntropy2d). torch's reference decomposition first asks whether input and target are
    # empty, a guard torch.export cannot decide on an unbacked size ("Could not guard on
    # data-dependent expression Eq(5*u0, 0)"). While exporting, ATen's formula without that
    # question: the target's log-probability gathered, weighted, ignored targets zeroed, the mean
    # divided by the kept weights (0 / 0 = NaN for no rows, as ATen). Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments, as torch reads them (truth)
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
    class_dim = 0 if input.dim() == 1 else 1
    ignored = target == ignore_index
    safe_target = target.masked_fill(ignored, 0)
    picked = -input.gather(class_dim, safe_target.unsqueeze(class_dim)).squeeze(class_dim)
    weights = torch.ones_like(picked) if weight is None else weight.to(input.dtype)[safe_target]
    weights = weights.masked_fill(ignored, 0.0)
    losses = torch.where(ignored, torch.zeros_like(picked), picked * weights)
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    return losses.sum() / weights.sum()
