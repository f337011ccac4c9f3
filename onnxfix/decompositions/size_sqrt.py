import torch


def _onnx_size_sqrt(sqrt, d):
    # sqrt(d) of a number computed from sizes, with `sqrt` the caller's own (math.sqrt). In eager
    # (a Python number) exactly that call. Under torch.export (a SymInt or SymFloat) math.sqrt
    # becomes torch._sym_sqrt, which has no ONNX translation: d ** 0.5, kept symbolic (the graph's
    # own power). The legacy exporter still records the export-time value: a float taken from a
    # traced size is a constant however it is computed.
    if isinstance(d, (torch.SymInt, torch.SymFloat)):
        return d**0.5
    return sqrt(d)
