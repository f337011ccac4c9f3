import torch


def _onnx_sym_int(x):
    # int(x) of a float computed from sizes. While the legacy exporter traces, sizes are 0-d
    # tensors and x is one: its int64 cast truncates toward zero as int() does and stays a graph
    # value, where int() recorded the export-time number (the traced float math runs in float32:
    # at a few sizes, such as 90 * 0.7, it lands on the other side of an integer than eager's
    # float64). Everywhere else torch.sym_int: int() itself for a Python number or tensor (eager),
    # symbolic truncation of a SymFloat (torch.export).
    if isinstance(x, torch.Tensor) and torch.jit.is_tracing():
        return x.to(torch.int64)
    return torch.sym_int(x)
