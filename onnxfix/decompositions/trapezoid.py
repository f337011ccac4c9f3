import torch


def _onnx_trapezoid(y, x=None, *, dx=None, dim=-1):
    # As ATen: with spacing dx, (sum(y) - (y[0] + y[-1]) / 2) * dx; with sample points x,
    # sum(dx_i * (y[i] + y[i+1])) / 2.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return (torch.trapezoid(y, x, dim=dim) if x is not None
                else torch.trapezoid(y, dx=1 if dx is None else dx, dim=dim))
    n = y.shape[dim]
    if x is None:
        spacing = 1 if dx is None else dx
        return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * spacing
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[dim] = -1
        x = x.reshape(shape)
    step = x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)
    return (step * (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1))).sum(dim) / 2.0
