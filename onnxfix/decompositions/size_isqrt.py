import torch


def _onnx_size_isqrt(sqrt, n):
    # int(sqrt(n)) of a size n, with `sqrt` the caller's own (math.sqrt, numpy.sqrt). In eager (a
    # Python int) exactly that call. Under torch.export (a SymInt) neither has an ONNX translation:
    # the truncated n ** 0.5, kept symbolic (exported, the graph's own power; a correction by one
    # either way made torch.export's symbolic reasoning hang on nested grids). While the legacy
    # exporter traces, the size is a 0-d tensor: the floor of its float64 square root, a graph
    # value where int() recorded a constant.
    if isinstance(n, torch.SymInt):
        return torch.sym_int(n**0.5)
    if isinstance(n, torch.Tensor) and torch.jit.is_tracing():
        return torch.sqrt(n.double()).floor().long()
    return int(sqrt(n))
