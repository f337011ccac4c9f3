import torch


def _onnx_sort_rank(x, descending=False):
    # Position of each element of the last axis in a stable sort (NaN sorts as the largest
    # value, as in torch.sort): the number of elements that sort strictly before it, plus the
    # number of equal elements at smaller indices. O(n^2) memory along the axis.
    if x.dtype == torch.bool:
        x = x.to(torch.int64)
    a = x.unsqueeze(-1)  # element i
    b = x.unsqueeze(-2)  # element j
    before = (b > a) if descending else (b < a)
    equal = a == b
    if x.is_floating_point():
        a_nan, b_nan = torch.isnan(a), torch.isnan(b)
        before = before | ((b_nan & ~a_nan) if descending else (a_nan & ~b_nan))
        equal = equal | (a_nan & b_nan)
    steps = torch.arange(x.shape[-1], device=x.device)
    earlier = steps.unsqueeze(0) < steps.unsqueeze(1)  # (i, j): j < i
    return (before | (equal & earlier)).sum(-1)
