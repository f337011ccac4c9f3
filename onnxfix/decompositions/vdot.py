import torch


def _onnx_vdot(input, other):
    # sum(conj(a) * b) of two 1-d tensors, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.vdot(input, other)
    return (input.conj() * other).sum()
