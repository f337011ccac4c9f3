import torch


def _onnx_pair_fourier(op, input, *args, **kwargs):
    # torch.fft's complex transforms (fft, fft2, fftn, their inverses, and rfft): while exporting,
    # the spectrum as a _onnx_complex_pair (ONNX runtimes carry no complex tensors; the legacy
    # exporter has no aten::fft_*), one _onnx_dft per transformed dimension on the real and
    # imaginary parts, so a spectral filter (fft2, a shift, a real mask, ifft2, `.real` or `abs`)
    # exports whole. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return op(input, *args, **kwargs)
    name = op.__name__.removeprefix("fft_")  # fft, fft2, fftn, ifft, ifft2, ifftn, rfft
    if name == "rfft":
        n, dim, norm = _fourier_arguments(args, kwargs, ("n", "dim", "norm"), (None, -1, None))
        stacked = _onnx_rfftn(input, None if n is None else (n,), (dim,), norm)
        return _onnx_complex_pair(stacked[..., 0], stacked[..., 1])
    one, two = name.endswith("fft"), name.endswith("fft2")
    names = ("n", "dim", "norm") if one else ("s", "dim", "norm")
    size, dim, norm = _fourier_arguments(args, kwargs, names, (None, -1 if one else (-2, -1) if two else None, None))
    if one:
        size, dim = (None if size is None else (size,)), (dim,)
    value = _OnnxComplexPair._of(input)
    re, im = (value.real, value.imag) if isinstance(value, _OnnxComplexPair) else (input, None)
    if not re.is_floating_point():
        re = re.to(torch.get_default_dtype())
    rank = re.dim()
    if dim is None:
        dim = tuple(range(rank))[-len(size):] if size is not None else tuple(range(rank))
    dim = [dim] if isinstance(dim, int) else list(dim)
    size = [re.shape[d] for d in dim] if size is None else [re.shape[d] if n == -1 else n for d, n in zip(dim, size)]
    inverse = name.startswith("i")
    # the scale of each transformed dimension: "backward" (the default) scales the inverse by
    # 1 / n, "forward" the forward transform, "ortho" both by 1 / sqrt(n)
    scaled = {None: inverse, "backward": inverse, "forward": not inverse}.get(norm)
    for d, n in zip(dim, size):  # noqa: ONX603 - over the (static) transformed dimensions
        re, im = _onnx_dft(re, im, d % rank, n, n, inverse=inverse)
        if norm == "ortho":
            re, im = re / n**0.5, im / n**0.5
        elif scaled:
            re, im = re / n, im / n
    return _onnx_complex_pair(re, im)


def _fourier_arguments(args, kwargs, names, defaults):
    # torch.fft's (size, dim, norm) after the input, positional or by keyword
    values = dict(zip(names, defaults))
    values.update(zip(names, args))
    values.update({k: v for k, v in kwargs.items() if k in values})
    return tuple(values[n] for n in names)
