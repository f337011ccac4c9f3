import torch


def _onnx_block_diag(*tensors):
    # Each block (0-D -> 1x1, 1-D -> one row) is zero-padded on the left and right to the full
    # width and the rows are stacked; the number of blocks is static.
    blocks = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    dtype = blocks[0].dtype
    for block in blocks[1:]:  # noqa: ONX603 - over the (static) list of blocks
        dtype = torch.promote_types(dtype, block.dtype)
    width = sum(block.shape[1] for block in blocks)
    rows, left = [], 0
    for block in blocks:  # noqa: ONX603 - over the (static) list of blocks
        rows.append(torch.nn.functional.pad(block.to(dtype), (left, width - left - block.shape[1])))
        left = left + block.shape[1]
    return torch.cat(rows, 0)
