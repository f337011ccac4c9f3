import torch


def _onnx_cov(input, *, correction=1, fweights=None, aweights=None):
    # ATen's cov formula without its argument checks: the checks read tensor values
    # (`w_sum != 0`, `fweights >= 0`), which is what makes torch.export fail
    # (DataDependentOutputException: aten.equal). Invalid weights are not diagnosed here.
    x = input.view(1, -1) if input.dim() < 2 else input  # (variables, observations)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    # Unweighted, torch divides by the observation count as an int64 scalar tensor; counting
    # ones keeps it a tensor that follows a dynamic number of observations in the graph.
    w_sum = torch.ones_like(x.sum(0), dtype=torch.int64).sum() if w is None else w.sum()
    avg = (x if w is None else x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    # torch warns and divides by 0 when the degrees of freedom are <= 0
    norm_factor = torch.where(norm_factor <= 0, torch.zeros_like(norm_factor), norm_factor)
    x = x - avg.unsqueeze(1)
    other = (x if w is None else x * w).t()
    if other.is_complex():
        other = other.conj()
    return torch.true_divide(torch.mm(x, other), norm_factor).squeeze()
