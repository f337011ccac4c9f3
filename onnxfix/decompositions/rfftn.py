import torch


def _onnx_rfftn(input, s=None, dim=None, norm=None):
    # torch.fft.rfftn of a real input as two real tensors stacked last, the layout of
    # torch.view_as_real(torch.fft.rfftn(...)): the last transformed dimension one-sided
    # (n // 2 + 1 frequencies), then full transforms of the others (_onnx_dft), the norm's scale
    # per dimension. `s` entries of -1 are not supported.
    # Outside export (torch.fft.rfftn itself, bit for bit) the DFT below never runs: it is what the
    # exporters trace (torch.onnx.is_in_onnx_export() is True under both while tracing).
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_real(torch.fft.rfftn(input, s, dim, norm))
    re = input if input.is_floating_point() else input.to(torch.get_default_dtype())
    if dim is None:
        dim = tuple(range(input.dim()))[-len(s):] if s is not None else tuple(range(input.dim()))
    dim = [dim] if isinstance(dim, int) else list(dim)
    s = [input.shape[d] for d in dim] if s is None else list(s)
    re, im = _onnx_dft(re, None, dim[-1] % input.dim(), s[-1], s[-1] // 2 + 1)
    for d, n in zip(dim[:-1], s[:-1]):  # noqa: ONX603 - over the (static) transformed dimensions
        re, im = _onnx_dft(re, im, d % input.dim(), n, n)
    for n in s:  # noqa: ONX603 - over the (static) transformed dimensions
        if norm == "ortho":
            re, im = re / n**0.5, im / n**0.5
        elif norm == "forward":
            re, im = re / n, im / n
    return torch.stack((re, im), -1)
