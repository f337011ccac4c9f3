import torch


def _onnx_fftn(input, s=None, dim=None, norm=None):
    # torch.fft.fftn as two real tensors stacked last, the layout of torch.view_as_real(
    # torch.fft.fftn(...)): one _onnx_dft per transformed dimension, the norm's scale per
    # dimension (1 / n "forward", 1 / sqrt(n) "ortho"). `s` entries of -1 are not supported.
    # Outside export (torch.fft.fftn itself, bit for bit) the DFT below never runs: it is what the
    # exporters trace (torch.onnx.is_in_onnx_export() is True under both while tracing).
    if not torch.onnx.is_in_onnx_export():
        return torch.view_as_real(torch.fft.fftn(input, s, dim, norm))
    if input.is_complex():
        re, im = input.real, input.imag
    else:
        re, im = (input if input.is_floating_point() else input.to(torch.get_default_dtype())), None
    if dim is None:
        dim = tuple(range(input.dim()))[-len(s):] if s is not None else tuple(range(input.dim()))
    dim = [dim] if isinstance(dim, int) else list(dim)
    s = [input.shape[d] for d in dim] if s is None else list(s)
    for d, n in zip(dim, s):  # noqa: ONX603 - over the (static) transformed dimensions
        re, im = _onnx_dft(re, im, d % input.dim(), n, n)
        if norm == "ortho":
            re, im = re / n**0.5, im / n**0.5
        elif norm == "forward":
            re, im = re / n, im / n
    return torch.stack((re, im), -1)
