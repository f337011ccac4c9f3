import torch


def _onnx_linspace_steps(start, end, steps, **kwargs):
    # torch.linspace with a tensor size for `steps`. torch.export reads linspace's `steps` as a
    # plain int and specializes the size it comes from; while it exports, the same points are
    # built from an arange (SymInt-sized) the way ATen fills them: the lower half from `start`,
    # the upper half from `end`. Eager (and the legacy exporter, which traces linspace over a size
    # correctly) run torch.linspace itself.
    if not torch.compiler.is_exporting():
        return torch.linspace(start, end, steps, **kwargs)
    dtype = kwargs.get("dtype") or torch.get_default_dtype()
    # integral points are computed in double and truncated, as ATen does (and an int64 index
    # never wraps, as a uint8 one would)
    compute = dtype if dtype.is_floating_point else torch.float64
    index = torch.arange(steps, device=kwargs.get("device"), dtype=torch.int64).to(compute)
    step = (end - start) / torch.sym_max(steps - 1, 1)
    lower = index * step + start
    upper = end - (steps - 1 - index) * step
    points = torch.where(index < steps // 2, lower, upper)
    return torch.where(index == 0, start, points).to(dtype)  # one step: `start`, as linspace
