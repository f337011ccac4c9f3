import torch


def _onnx_size_isqrt(sqrt, n):
    # int(sqrt(n)) of a size n, with `sqrt` the caller's own (math.sqrt, numpy.sqrt). In eager (a
    # Python int) exactly that call. Under torch.export (a SymInt) neither has an ONNX translation:
    # n ** 0.5 truncated, then corrected by one either way, is the integer square root, which
    # int(math.sqrt(n)) is for every 0 <= n < 2**52 (a correctly rounded sqrt never reaches the next
    # integer there), kept symbolic. While the legacy exporter traces, the size is a 0-d tensor:
    # the floor of its float64 square root, a graph value where int() recorded a constant.
    if isinstance(n, torch.SymInt):
        root = torch.sym_int(n**0.5)
        return root - torch.sym_ite(root * root > n, 1, 0) + torch.sym_ite((root + 1) * (root + 1) <= n, 1, 0)
    if isinstance(n, torch.Tensor) and torch.jit.is_tracing():
        return torch.sqrt(n.double()).floor().long()
    return int(sqrt(n))
