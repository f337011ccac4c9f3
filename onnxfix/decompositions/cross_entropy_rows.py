import torch


def _onnx_cross_entropy_rows(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                             reduction="mean", label_smoothing=0.0):
    # cross_entropy of a data-dependent number of rows: its nll_loss half stops torch.export's
    # decomposition on an unbacked size (see _onnx_nll_rows). While exporting, log_softmax over
    # the classes and _onnx_nll_rows; class-probability targets and label smoothing run the op.
    # Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.cross_entropy(
            input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
    if target.is_floating_point() or label_smoothing != 0.0:
        return torch.nn.functional.cross_entropy(
            input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing)
    log_probs = torch.log_softmax(input, 0 if input.dim() == 1 else 1)
    return _onnx_nll_rows(log_probs, target, weight, size_average, ignore_index, reduce, reduction)
