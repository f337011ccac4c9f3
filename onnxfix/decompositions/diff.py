import torch


def _onnx_diff(input, n=1, dim=-1, prepend=None, append=None):
    # As ATen: concatenate prepend/append along `dim`, then n times x[1:] - x[:-1] (for bool,
    # x[1:] != x[:-1]). n is a Python int: the loop runs at most n times at trace time (a
    # tensor shorter than n gives an empty result, as torch).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.diff(input, n, dim, prepend, append)
    parts = [p for p in (prepend, input, append) if p is not None]
    x = torch.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(min(n, x.shape[dim])):  # noqa: ONX603 - n is the static order of the difference
        length = x.shape[dim]
        later, earlier = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = later != earlier if x.dtype == torch.bool else later - earlier
    return x
