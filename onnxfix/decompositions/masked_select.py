import torch


def _onnx_masked_select(input, mask):
    # Boolean indexing of the broadcast pair selects the same elements in the same (row-major)
    # order as masked_select; both exporters translate it (NonZero + GatherND), while
    # aten.masked_select has no dynamo translation.
    input, mask = torch.broadcast_tensors(input, mask)
    return input[mask]
