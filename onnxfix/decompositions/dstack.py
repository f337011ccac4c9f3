import torch


def _onnx_dstack(tensors):
    # each tensor at least 3-d (0-d -> 1x1x1, N -> 1xNx1, MxN -> MxNx1), concatenated along
    # dimension 2, as ATen.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.dstack(tensors)
    shaped = []
    for t in tensors:  # noqa: ONX603 - a Python list of tensors
        if t.dim() == 0:
            t = t.reshape(1, 1, 1)
        elif t.dim() == 1:
            t = t.reshape(1, -1, 1)
        elif t.dim() == 2:
            t = t.unsqueeze(-1)
        shaped.append(t)
    return torch.cat(shaped, 2)
