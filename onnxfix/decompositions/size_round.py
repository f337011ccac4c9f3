import torch


def _onnx_size_round(rounding, x):
    # math.ceil / math.floor (the caller's own `rounding`) of a number computed from sizes. While
    # the legacy exporter traces, sizes are 0-d tensors and x is one: rounded in the graph (an
    # integer tensor is whole already; a float one goes through torch.ceil / torch.floor, then to
    # int64), a graph value where the call recorded the export-time number (computed in float32
    # by the trace: at a few sizes, such as 50 * 0.3, rounded across an integer eager's float64
    # does not cross). Everywhere else the
    # call itself: eager runs exactly `rounding(x)`, and torch.export rounds a SymFloat symbolically.
    if isinstance(x, torch.Tensor) and torch.jit.is_tracing():
        if x.is_floating_point():
            x = torch.ceil(x) if rounding.__name__ == "ceil" else torch.floor(x)
        return x.to(torch.int64)
    return rounding(x)
