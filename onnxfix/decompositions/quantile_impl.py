import torch


def _onnx_quantile_impl(input, q, dim, keepdim, interpolation, ignore_nan):
    # Shared by _onnx_quantile and _onnx_nanquantile (ATen's quantile_compute). NaN is replaced
    # by +inf before sorting (NaN sorts last in torch; the exported TopK does not promise it).
    # (non-negative dims: the legacy exporter writes movedim as a Transpose and rejects perm -1)
    x = input.reshape(-1) if dim is None else input.movedim(dim % input.dim(), input.dim() - 1)
    nan = x.isnan()
    ordered = torch.sort(torch.where(nan, torch.full((), float("inf"), dtype=x.dtype, device=x.device), x), -1).values
    q_tensor = torch.as_tensor(q, dtype=x.dtype, device=x.device)
    qs = q_tensor.reshape(-1)
    last_index = x.shape[-1] - 1
    if ignore_nan:
        count = (~nan).sum(-1, keepdim=True)
        ranks = qs * (count - 1)
        ranks = torch.where(ranks < 0, torch.zeros((), dtype=ranks.dtype, device=ranks.device), ranks)
        undefined = count == 0
    else:
        ranks = (qs * last_index).expand(x.shape[:-1] + qs.shape)
        undefined = nan.any(-1, keepdim=True)
    if interpolation == "lower":
        ranks = torch.floor(ranks)
    elif interpolation == "higher":
        ranks = torch.ceil(ranks)
    elif interpolation == "nearest":
        ranks = torch.round(ranks)
    below = ranks.to(torch.int64)
    values = torch.gather(ordered, -1, below)
    if interpolation in ("linear", "midpoint"):
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = torch.gather(ordered, -1, torch.ceil(ranks).to(torch.int64))
        values = torch.lerp(values, above, weights)
    values = torch.where(undefined, torch.full((), float("nan"), dtype=values.dtype, device=values.device), values)
    # (..., len(q)) -> (len(q), ...) with the reduced dimension dropped or kept
    values = values.movedim(values.dim() - 1, 0)
    if keepdim:
        if dim is None:
            values = values.reshape(values.shape[:1] + (1,) * input.dim())
        else:
            values = values.unsqueeze(dim % input.dim() + 1)
    return values.squeeze(0) if q_tensor.dim() == 0 else values
