import torch


def _onnx_vander(x, N=None, increasing=False):
    # ATen fills column 0 with ones and runs cumprod over copies of x; the same sequential
    # products are unrolled here over the static column count N (ONNX has no CumProd). The CPU
    # cumprod kernel accumulates float32 in float64 (and half types in float32), rounding each
    # column back, so the running product is kept in that wider type too: bit-identical.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.vander(x, N, increasing)
    n = x.shape[0] if N is None else N
    dtype = torch.promote_types(x.dtype, torch.int64)  # integers and bool give int64, as torch
    if n == 0:
        return torch.empty((x.shape[0], 0), dtype=dtype, device=x.device)
    wide = {torch.float32: torch.float64, torch.float16: torch.float32, torch.bfloat16: torch.float32}.get(dtype, dtype)
    base = x.to(dtype).to(wide)
    columns = [torch.ones_like(base)]
    for _ in range(n - 1):  # noqa: ONX603 - N columns, a static size
        columns.append(base if len(columns) == 1 else columns[-1] * base)
    columns = [column.to(dtype) for column in columns]
    if not increasing:
        columns.reverse()
    return torch.stack(columns, 1)
