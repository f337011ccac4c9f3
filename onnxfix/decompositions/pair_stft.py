import torch


def _onnx_pair_stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                    normalized=False, onesided=None, return_complex=None, align_to_window=None):
    # torch.stft(..., return_complex=True): the legacy exporter's STFT symbolic takes only real
    # output ("STFT does not currently support complex types"), so while it exports, the real
    # (..., 2) output is carried as a _onnx_complex_pair (`.abs()` of it is the magnitude). The
    # dynamo exporter takes the complex op. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                          return_complex=return_complex, align_to_window=align_to_window)
    real_signal = not input.is_complex() and not (window is not None and window.is_complex())
    if torch.compiler.is_exporting():  # dynamo: the op, its real signal's DC and Nyquist bins as ATen gives them
        spectrum = torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                              return_complex=return_complex, align_to_window=align_to_window)
        if not (return_complex and real_signal):
            return spectrum
        return torch.complex(spectrum.real, _real_bins_zeroed(spectrum.imag, n_fft))
    if not return_complex or align_to_window is not None:  # legacy takes these as they are, or names the option
        return torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                          return_complex=return_complex, align_to_window=align_to_window)
    stacked = torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                         return_complex=False)
    imag = stacked[..., 1]
    if real_signal:
        imag = _real_bins_zeroed(imag, n_fft)
    return _onnx_complex_pair(stacked[..., 0], imag)


def _real_bins_zeroed(imag, n_fft):
    # A real signal's DC and Nyquist bins are real: ATen's real-to-complex FFT writes their
    # imaginary parts as +0, onnxruntime's STFT a rounding of either sign, and the phase of a
    # negative real part (torch.angle) is pi at +0, -pi below it. `imag` is (..., freq, frames).
    k = torch.arange(imag.shape[-2], device=imag.device).unsqueeze(-1)
    return torch.where((k == 0) | (2 * k == n_fft), torch.zeros_like(imag), imag)
