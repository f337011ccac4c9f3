import torch


def _onnx_cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    # As ATen, op for op: the running sum of (dx / 2) * (y[i] + y[i+1]) for a number dx; with
    # sample points x, the running sum of (y[i] + y[i+1]) * (x[i+1] - x[i]), then halved.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return (torch.cumulative_trapezoid(y, x, dim=dim) if x is not None
                else torch.cumulative_trapezoid(y, dx=1 if dx is None else dx, dim=dim))
    n = y.shape[dim]
    pairs = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if x is None:
        spacing = 1 if dx is None else dx
        return (spacing / 2.0 * pairs).cumsum(dim)
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[dim] = -1
        x = x.reshape(shape)
    step = x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    return (pairs * step).cumsum(dim) / 2.0  # ATen's order: halving first differs for subnormals
