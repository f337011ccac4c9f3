import torch


def _onnx_poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-08, reduce=None,
                           reduction="mean"):
    # exp(input) - target input (log_input), else input - target log(input + eps); with full,
    # Stirling's target log(target) - target + log(2 pi target) / 2 where target > 1; reduced,
    # as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.poisson_nll_loss(input, target, log_input, full, size_average, eps, reduce, reduction)
    if size_average is not None or reduce is not None:  # the deprecated arguments: the op itself
        return torch.nn.functional.poisson_nll_loss(input, target, log_input, full, size_average, eps, reduce, reduction)
    values = torch.exp(input) - target * input if log_input else input - target * torch.log(input + eps)
    if full:
        safe = torch.where(target > 1, target, torch.ones_like(target))
        stirling = safe * torch.log(safe) - safe + 0.5 * torch.log(6.283185307179586 * safe)
        values = values + torch.where(target > 1, stirling, torch.zeros_like(stirling))
    return _onnx_loss_reduce(values, reduction)
