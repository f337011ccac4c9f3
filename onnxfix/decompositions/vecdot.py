import torch


def _onnx_vecdot(x, y, *, dim=-1):
    # As ATen: (conj(x) * y).sum(dim).
    if x.is_complex():
        x = x.conj()
    return (x * y).sum(dim)
