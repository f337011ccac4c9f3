import torch


def _onnx_complex_pair(real, imag):
    # A complex tensor while exporting (ONNX has none): its real and imaginary parts, made by the
    # _onnx_pair_* helpers. Products, sums, indexing, reshapes and `.to()` work on both parts,
    # torch.view_as_real stacks them; an op the pair lacks raises, naming it.
    return _OnnxComplexPair(real, imag)


class _OnnxComplexPair:
    def __init__(self, real, imag):
        self.real, self.imag = real, imag

    shape = property(lambda self: self.real.shape)
    # the complex dtype the parts make (`if x.dtype == torch.cfloat:` tests keep their answer)
    dtype = property(lambda self: {torch.float64: torch.complex128, torch.float16: torch.complex32}.get(
        self.real.dtype, torch.complex64))
    T = property(lambda self: _OnnxComplexPair(self.real.T, self.imag.T))
    mT = property(lambda self: _OnnxComplexPair(self.real.mT, self.imag.mT))
    device = property(lambda self: self.real.device)
    ndim = property(lambda self: self.real.ndim)

    def dim(self):
        return self.real.dim()

    def size(self, *args):
        return self.real.size(*args)

    def __getattr__(self, name):
        # indexing, layout, device, copies and real-linear reductions apply to both parts alike
        if name in _PART_WISE:
            return lambda *args, **kwargs: _OnnxComplexPair(getattr(self.real, name)(*args, **kwargs),
                                                            getattr(self.imag, name)(*args, **kwargs))
        if name in _PIECE_WISE:  # split, chunk, unbind: a pair per piece
            return lambda *args, **kwargs: tuple(_OnnxComplexPair(r, i) for r, i in zip(
                getattr(self.real, name)(*args, **kwargs), getattr(self.imag, name)(*args, **kwargs)))
        raise AttributeError(f"{name} of a complex tensor carried as (real, imaginary) parts while exporting")

    def __getitem__(self, index):
        return _OnnxComplexPair(self.real[index], self.imag[index])

    @staticmethod
    def _of(value):
        # a complex tensor made elsewhere (a buffer computed in __init__): its parts
        if isinstance(value, torch.Tensor) and value.is_complex():
            return _OnnxComplexPair(value.real, value.imag)
        return value

    def __mul__(self, other):
        other = self._of(other)
        if not isinstance(other, _OnnxComplexPair):
            return _OnnxComplexPair(self.real * other, self.imag * other)
        return _OnnxComplexPair(self.real * other.real - self.imag * other.imag,
                                self.real * other.imag + self.imag * other.real)

    __rmul__ = __mul__

    def __add__(self, other):
        other = self._of(other)
        if not isinstance(other, _OnnxComplexPair):
            return _OnnxComplexPair(self.real + other, self.imag)
        return _OnnxComplexPair(self.real + other.real, self.imag + other.imag)

    __radd__ = __add__

    def __neg__(self):
        return _OnnxComplexPair(-self.real, -self.imag)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, other):
        other = self._of(other)
        if not isinstance(other, _OnnxComplexPair):
            return _OnnxComplexPair(self.real / other, self.imag / other)
        return self * other.conj() * (1 / (other.real * other.real + other.imag * other.imag))

    def __matmul__(self, other):
        return _bilinear(torch.matmul, self, other)

    def __rmatmul__(self, other):
        return _bilinear(torch.matmul, other, self)

    def conj(self):
        return _OnnxComplexPair(self.real, -self.imag)

    def abs(self):
        return torch.sqrt(self.real * self.real + self.imag * self.imag)

    def angle(self):
        # always _onnx_atan2 (a fix writing the pair writes it too): both exporters' Atan2 give -pi
        # on the negative real axis, where a real signal's DC and Nyquist bins lie (torch: pi)
        return _onnx_atan2(self.imag, self.real)

    def exp(self):
        scale = torch.exp(self.real)
        return _OnnxComplexPair(scale * torch.cos(self.imag), scale * torch.sin(self.imag))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # torch's argument parser hands a call with a pair argument to the pair
        if func is torch.view_as_real:
            (pair,) = args
            return torch.stack((pair.real, pair.imag), -1)
        name = getattr(func, "__name__", "")
        if name in ("mul", "__mul__", "__rmul__", "add", "__add__", "__radd__") and len(args) == 2 and not kwargs:
            pair, other = (args[0], args[1]) if isinstance(args[0], cls) else (args[1], args[0])
            return pair * other if "mul" in name else pair + other
        if name in ("matmul", "__matmul__") and len(args) == 2 and not kwargs:
            return _bilinear(torch.matmul, *args)
        if name == "einsum" and len(args) == 3 and not kwargs:  # two operands
            return _bilinear(lambda a, b: torch.einsum(args[0], a, b), args[1], args[2])
        if name == "exp" and len(args) == 1 and not kwargs:
            return args[0].exp()
        if name in ("abs", "angle", "conj") and len(args) == 1 and not kwargs:  # torch.abs(pair)
            return getattr(args[0], name)()
        if name in ("real", "imag") and len(args) == 1 and not kwargs:  # torch.real(pair)
            return getattr(args[0], name)
        if name in ("fft_fftshift", "fft_ifftshift"):
            return _shifted(name == "fft_ifftshift", *args, **(kwargs or {}))
        if name == "istft":
            return _inverse_stft(*args, **(kwargs or {}))
        if name == "pad":
            return _pad(*args, **(kwargs or {}))
        if name in _PART_WISE and isinstance(args[0], cls) and not _pairs_in((*args[1:], *(kwargs or {}).values())):
            return _OnnxComplexPair(func(args[0].real, *args[1:], **(kwargs or {})),
                                    func(args[0].imag, *args[1:], **(kwargs or {})))
        if name in ("cat", "concat", "concatenate", "stack") and isinstance(args[0], (list, tuple)):
            parts = [_parts(t) for t in args[0]]
            imags = [torch.zeros_like(r) if i is None else i for r, i in parts]
            return _OnnxComplexPair(func([r for r, _ in parts], *args[1:], **(kwargs or {})),
                                    func(imags, *args[1:], **(kwargs or {})))
        if name in ("fft_irfft", "fft_irfft2", "fft_irfftn"):
            return _inverse_real_fft(name, *args, **(kwargs or {}))
        if name in ("sub", "__sub__") and len(args) == 2 and not kwargs:
            return args[0] + (-args[1])
        if name == "__rsub__" and len(args) == 2 and not kwargs:
            return args[1] + (-args[0])
        raise TypeError(f"{name or func} of a complex tensor carried as (real, imaginary) parts while exporting")


# ops applied to each part alike: layout, indexing, copies, and sums (linear with real coefficients)
_PART_WISE = frozenset({
    "to", "reshape", "view", "unsqueeze", "squeeze", "transpose", "permute", "expand", "expand_as", "contiguous",
    "clone", "flatten", "unflatten", "repeat", "narrow", "detach", "float", "double", "unfold", "index_select",
    "movedim", "moveaxis", "swapaxes", "roll", "flip", "select", "sum", "mean", "cumsum", "repeat_interleave", "tile",
    "diagonal", "tril", "triu",
})
_PIECE_WISE = frozenset({"split", "chunk", "unbind", "tensor_split"})


def _pairs_in(values) -> bool:
    return any(isinstance(v, _OnnxComplexPair) or isinstance(v, torch.Tensor) and v.is_complex() for v in values)


def _parts(value):
    """(real, imaginary) of a pair or a complex tensor, (value, None) of a real one."""
    value = _OnnxComplexPair._of(value)
    return (value.real, value.imag) if isinstance(value, _OnnxComplexPair) else (value, None)


def _bilinear(product, left, right):
    # a product linear in each operand (matmul, a two-operand einsum) expanded over the parts
    (a, b), (c, d) = _parts(left), _parts(right)
    if b is None:
        return _OnnxComplexPair(product(a, c), product(a, d))
    if d is None:
        return _OnnxComplexPair(product(a, c), product(b, c))
    return _OnnxComplexPair(product(a, c) - product(b, d), product(a, d) + product(b, c))


def _inverse_real_fft(name, pair, s=None, dim=None, norm=None):
    # irfft / irfft2 / irfftn of a pair: _onnx_irfftn on the parts stacked last (the layout of
    # torch.view_as_real), when the file has that helper (the pair_rfft* fixes bring it)
    helper = globals().get("_onnx_irfftn")
    if helper is None:
        raise TypeError(f"{name} of a complex tensor carried as (real, imaginary) parts while exporting")
    if name == "fft_irfft":  # (input, n, dim=-1, norm)
        s, dim = (None if s is None else (s,)), ((-1 if dim is None else dim),)
    elif name == "fft_irfft2" and dim is None:
        dim = (-2, -1)
    return helper(torch.stack((pair.real, pair.imag), -1), s, dim, norm)


def _shifted(inverse, pair, dim=None):
    # fftshift / ifftshift of a pair: each part rolled by half of each size, as two slices and a
    # concatenation per dimension (a permutation: exact). The legacy exporter has no
    # aten::fft_fftshift, and torch.roll by sizes read from the input does not export there.
    def rolled(part):
        dims = range(part.dim()) if dim is None else (dim,) if isinstance(dim, int) else dim
        for d in dims:  # noqa: ONX603 - over the (static) dimensions to shift
            d = d % part.dim()
            size = part.shape[d]
            cut = size // 2 if inverse else size - size // 2  # fftshift: the last size // 2 first
            before = (slice(None),) * d
            part = torch.cat((part[before + (slice(cut, None),)], part[before + (slice(0, cut),)]), d)
        return part

    return _OnnxComplexPair(rolled(pair.real), rolled(pair.imag))


def _pad(input, pad, mode="constant", value=None):
    # F.pad of a pair: each part padded alike; a constant's real part pads the real part, its
    # imaginary part (0 for a real constant) the imaginary one
    imag_value = None if value is None else complex(value).imag
    real_value = None if value is None else complex(value).real
    return _OnnxComplexPair(torch.nn.functional.pad(input.real, pad, mode, real_value),
                            torch.nn.functional.pad(input.imag, pad, mode, imag_value))


def _inverse_stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
                  onesided=None, length=None, return_complex=False):
    # torch.istft of a one-sided pair spectrum (..., n_fft // 2 + 1, frames): each frame's irfft
    # (_onnx_irfftn on the parts), windowed, overlap-added by one scatter_add, divided by the
    # overlap-added squared window, the center padding cut, as torch.istft computes it
    helper = globals().get("_onnx_irfftn")
    if helper is None or return_complex or onesided is False:
        raise TypeError("istft of a complex tensor carried as (real, imaginary) parts while exporting")
    pair = input  # torch.istft's first parameter is `input` (callers pass it by keyword too)
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if window is None:
        window = torch.ones(win_length, dtype=pair.real.dtype, device=pair.real.device)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = torch.nn.functional.pad(window, (left, n_fft - win_length - left))
    frames = helper(torch.stack((pair.real, pair.imag), -1), (n_fft,), (-2,), "ortho" if normalized else "backward")
    frames = frames * window.reshape(-1, 1)  # (..., n_fft, frames)
    count = frames.shape[-1]
    total = n_fft + hop * (count - 1)
    device = frames.device
    index = (torch.arange(n_fft, device=device).reshape(-1, 1) + torch.arange(count, device=device) * hop).reshape(1, -1)
    rows = frames.reshape(-1, n_fft * count)
    signal = rows.new_zeros(rows.shape[0], total).scatter_add(1, index.expand(rows.shape[0], -1), rows)
    squares = (window * window).reshape(-1, 1).expand(n_fft, count).reshape(1, -1)
    envelope = squares.new_zeros(1, total).scatter_add(1, index, squares)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    signal = signal[:, start:end] / envelope[:, start:end]
    if length is not None and signal.shape[-1] < length:  # torch pads a requested length with zeros
        signal = torch.nn.functional.pad(signal, (0, length - signal.shape[-1]))
    return signal.reshape(tuple(frames.shape[:-2]) + (signal.shape[-1],))
