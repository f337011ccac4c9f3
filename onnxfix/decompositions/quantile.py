import torch


def _onnx_quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", _ignore_nan=False):
    # ATen's algorithm: sort along the reduced dimension (NaN last), rank = q * (n - 1) (n counts
    # the non-NaN values for nanquantile; a row with NaN gets the last rank for quantile, so the
    # result is NaN), then gather the values below and above the rank and interpolate.
    scalar_q = not isinstance(q, torch.Tensor) or q.dim() == 0
    q = torch.as_tensor(q, dtype=input.dtype, device=input.device).reshape(-1)
    if dim is None:
        values = input.reshape(-1)
    else:  # the reduced dimension last (permute with explicit indices: the legacy exporter
        # writes negative movedim indices into Transpose as they are)
        reduced = dim % input.dim()
        values = input.permute([d for d in range(input.dim()) if d != reduced] + [reduced])
    values = torch.sort(values, dim=-1).values
    nan = values.isnan()
    if _ignore_nan:
        ranks = q * ((~nan).sum(-1, keepdim=True) - 1)
        ranks = torch.where(ranks < 0, torch.zeros_like(ranks), ranks)  # all NaN: rank 0, NaN
    else:
        last = values.shape[-1] - 1
        ranks = torch.where(nan.any(-1, keepdim=True), torch.full_like(q, last), q * last)
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(torch.int64)
    result = values.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = values.gather(-1, ranks.ceil().to(torch.int64))
        result = torch.lerp(result, above, weights)
    # result: (reduced dims..., len(q)); torch puts the quantiles first, or drops them for a scalar q
    if keepdim:
        if dim is None:
            result = result.reshape((1,) * input.dim() + (-1,))
        else:
            result = result.unsqueeze(dim % input.dim())
    if scalar_q:
        return result.squeeze(-1)
    return result.permute([result.dim() - 1] + list(range(result.dim() - 1)))
