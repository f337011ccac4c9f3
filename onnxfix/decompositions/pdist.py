import torch


def _onnx_pdist(input, p=2):
    # Distances between rows i < j in torch's order (row-major over the upper triangle). The
    # pairs depend only on the static row count, so they are built in Python as constants
    # (the legacy exporter has no triu_indices). Same p-norm formulas as ATen's kernel.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.pdist(input, p)
    n = input.shape[0]
    first = [i for i in range(n) for _ in range(i + 1, n)]  # noqa: ONX603 - static row count
    second = [j for i in range(n) for j in range(i + 1, n)]  # noqa: ONX603 - static row count
    left = torch.tensor(first, dtype=torch.int64, device=input.device)
    right = torch.tensor(second, dtype=torch.int64, device=input.device)
    diff = (input.index_select(0, left) - input.index_select(0, right)).abs()
    if p == 0:
        return (diff != 0).to(input.dtype).sum(-1)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return diff.pow(2).sum(-1).sqrt()
    if p == float("inf"):
        return diff.amax(-1) if diff.shape[-1] > 0 else diff.sum(-1)
    return diff.pow(p).sum(-1).pow(1.0 / p)
