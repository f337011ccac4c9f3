import torch


def _onnx_vecdot(x, y, *, dim=-1):
    # As ATen: (conj(x) * y).sum(dim).
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.linalg.vecdot(x, y, dim=dim)
    if x.is_complex():
        x = x.conj()
    return (x * y).sum(dim)
