import torch


def _onnx_dft(re, im, dim, n, out, inverse=False, hermitian=False):
    # One discrete Fourier transform along `dim`, unscaled, as real matmuls against cos/sin
    # matrices built from torch.arange of the sizes (so dynamic sizes export; ATen's FFT ops have
    # no ONNX translation in the legacy exporter and complex tensors none in either). `re`, `im`:
    # the real and imaginary parts (`im` None for a real input). Input index j, frequency k: the
    # phase j * k is reduced mod n in integers (exact), then scaled by 2 pi / n. Rows j >= n are zero,
    # which crops or zero-pads the input to length n as torch.fft's `n` / `s` do; `out` is the
    # number of frequencies returned (n, or n // 2 + 1 one-sided). hermitian=True is the inverse
    # of a one-sided spectrum (irfft): entries 0 < j < n / 2 count twice (their conjugate
    # mirror), the imaginary parts at j = 0 and j = n / 2 are ignored, and the real part is
    # returned.
    length = re.shape[dim]
    j = torch.arange(length, device=re.device).unsqueeze(-1)
    k = torch.arange(out, device=re.device)
    phase = j * k
    phase = phase - torch.div(phase, n, rounding_mode="floor") * n  # j * k mod n (`%` of a SymInt fails in dynamo)
    angle = phase.to(re.dtype) * (2 * torch.pi / n)
    # sin(pi) is not 0 in floating point: the Nyquist frequency's imaginary part is exactly 0 in
    # an FFT of a real input, and torch.angle of it jumps by 2 pi with the sign of a rounding
    cos, sin = torch.cos(angle), torch.sin(angle) * (2 * phase != n).to(re.dtype)
    if hermitian:
        edge = ((j == 0) | (2 * j == n)).to(re.dtype)
        inside = (2 * j <= n).to(re.dtype)
        cos, sin = cos * ((2 - edge) * inside), sin * ((2 - 2 * edge) * inside)
    else:
        keep = (j < n).to(re.dtype)
        cos, sin = cos * keep, sin * keep
    if not inverse:
        sin = -sin
    re = re.transpose(dim, -1)
    im = None if im is None else im.transpose(dim, -1)
    real = re @ cos if im is None else re @ cos - im @ sin
    if hermitian:
        return real.transpose(dim, -1), None
    imag = re @ sin if im is None else re @ sin + im @ cos
    return real.transpose(dim, -1), imag.transpose(dim, -1)
