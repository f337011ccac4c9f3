import torch


def _onnx_bincount(input, weights=None, minlength=0):
    # torch.bincount, whose length max(minlength, max + 1) the data decides (neither exporter
    # translates the op; torch.export's own decomposition needs a length it can read): the
    # length computed as a tensor, each value compared with arange(length) and the hits summed
    # (weighted when weights are given, in the dtype ATen returns: float32 and float64 weights
    # keep theirs, others give float64). Eager keeps the op: ATen accumulates the weights in
    # another order than a sum over the hits.
    if not torch.onnx.is_in_onnx_export():
        return torch.bincount(input, weights, minlength)
    if not input.numel():
        return torch.zeros(minlength, dtype=torch.long, device=input.device)  # ATen's, weights or not
    length = torch.clamp(input.max() + 1, min=minlength)
    hits = input.unsqueeze(-1) == torch.arange(length, device=input.device)
    if weights is None:
        return hits.sum(0)
    dtype = weights.dtype if weights.dtype in (torch.float32, torch.float64) else torch.float64
    return (hits * weights.to(dtype).unsqueeze(-1)).sum(0)
