import torch


def _onnx_tril_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=torch.strided):
    # torch.tril_indices of sizes taken from the input (TorchANI's atom pairs): the count of pairs
    # is a function of the sizes, so torch.export pins them to the example's, and the legacy
    # exporter has no symbolic for aten::tril_indices. The same pairs from a mask of the (row, col)
    # grid where col - row <= offset: nonzero lists them row by row, tril_indices' order. Integers:
    # exact, and contiguous as tril_indices gives them.
    rows = torch.arange(row, device=device)
    cols = torch.arange(col, device=device)
    keep = cols.unsqueeze(0) - rows.unsqueeze(1) <= offset
    return keep.nonzero().t().contiguous().to(dtype)
