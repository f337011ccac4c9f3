import torch


def _onnx_irfftn(input, s=None, dim=None, norm=None):
    # torch.fft.irfftn of a one-sided spectrum given as two real tensors stacked last (the
    # layout of torch.view_as_real; `dim` counts the dimensions of the complex tensor): inverse
    # full transforms of all but the last transformed dimension, then the Hermitian inverse of
    # the last (_onnx_dft hermitian=True, output length s[-1], default 2 * (m - 1)); the norm's
    # scale per dimension (1 / n "backward", the default, 1 / sqrt(n) "ortho"). `s` entries of
    # -1 are not supported.
    # Outside export (torch.fft.irfftn itself, bit for bit) the DFT below never runs: it is what the
    # exporters trace (torch.onnx.is_in_onnx_export() is True under both while tracing).
    if not torch.onnx.is_in_onnx_export():
        return torch.fft.irfftn(torch.view_as_complex(input), s, dim, norm)
    re, im = input[..., 0], input[..., 1]
    rank = input.dim() - 1
    if dim is None:
        dim = tuple(range(rank))[-len(s):] if s is not None else tuple(range(rank))
    dim = [dim] if isinstance(dim, int) else list(dim)
    dim = [d % rank for d in dim]
    if s is None:
        s = [re.shape[d] for d in dim[:-1]] + [2 * (re.shape[dim[-1]] - 1)]
    s = list(s)
    for d, n in zip(dim[:-1], s[:-1]):  # noqa: ONX603 - over the (static) transformed dimensions
        re, im = _onnx_dft(re, im, d, n, n, inverse=True)
    re, _ = _onnx_dft(re, im, dim[-1], s[-1], s[-1], inverse=True, hermitian=True)
    for n in s:  # noqa: ONX603 - over the (static) transformed dimensions
        if norm == "ortho":
            re = re / n**0.5
        elif norm != "forward":
            re = re / n
    return re
