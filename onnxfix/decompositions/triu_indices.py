import torch


def _onnx_triu_indices(row, col, offset=0, *, dtype=torch.long, device=None, layout=torch.strided):
    # torch.triu_indices of sizes taken from the input (TorchANI's atom pairs): the count of pairs
    # is a function of the sizes, so torch.export pins them to the example's, and the legacy
    # exporter has no symbolic for aten::triu_indices. The same pairs from a mask of the (row, col)
    # grid where col - row >= offset: nonzero lists them row by row, triu_indices' order. Integers:
    # exact, and contiguous as triu_indices gives them.
    rows = torch.arange(row, device=device)
    cols = torch.arange(col, device=device)
    keep = cols.unsqueeze(0) - rows.unsqueeze(1) >= offset
    return keep.nonzero().t().contiguous().to(dtype)
