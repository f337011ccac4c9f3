import torch


def _onnx_sym_float(x):
    # float(x) of a size. While the legacy exporter traces, sizes are 0-d tensors: their float32
    # cast stays a graph value, where float() recorded the export-time number (a size below 2**24
    # is exact in float32, and a float tensor with dims keeps its dtype against a 0-d one, as
    # against a Python float; a 0-d float16 operand would compute in float32, only while tracing).
    # Everywhere else torch.sym_float: float() itself for a Python number or tensor (eager), a
    # SymFloat kept symbolic (torch.export).
    if isinstance(x, torch.Tensor) and torch.jit.is_tracing():
        return x.to(torch.float32)
    return torch.sym_float(x)
