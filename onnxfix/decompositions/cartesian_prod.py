import torch


def _onnx_cartesian_prod(*tensors):
    # Row r holds one combination, the last tensor varying fastest: each 1-D tensor is
    # broadcast along the other axes of the product grid and flattened.
    if len(tensors) == 1:
        return tensors[0]
    count = len(tensors)
    shape = [t.shape[0] for t in tensors]
    columns = []
    for axis, t in enumerate(tensors):  # noqa: ONX603 - over the (static) list of tensors
        view = [1] * count
        view[axis] = -1
        columns.append(t.reshape(view).expand(shape).reshape(-1))
    return torch.stack(columns, 1)
