import torch


def _onnx_pair_stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
                    normalized=False, onesided=None, return_complex=None, align_to_window=None):
    # torch.stft(..., return_complex=True): the legacy exporter's STFT symbolic takes only real
    # output ("STFT does not currently support complex types"), so while it exports, the real
    # (..., 2) output is carried as a _onnx_complex_pair (`.abs()` of it is the magnitude).
    # Eager and the dynamo exporter (which takes the complex op) keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                          return_complex=return_complex, align_to_window=align_to_window)
    if not return_complex or align_to_window is not None:  # legacy takes these as they are, or names the option
        return torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                          return_complex=return_complex, align_to_window=align_to_window)
    stacked = torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided,
                         return_complex=False)
    imag = stacked[..., 1]
    if not input.is_complex() and not (window is not None and window.is_complex()):
        # a real signal's DC and Nyquist bins: ATen's real-to-complex FFT writes their imaginary
        # parts as +0; onnxruntime's STFT leaves a rounding of either sign there, and the phase of a
        # negative real part (torch.angle) is pi at +0, -pi below it
        k = torch.arange(imag.shape[-2], device=imag.device).unsqueeze(-1)
        imag = torch.where((k == 0) | (2 * k == n_fft), torch.zeros_like(imag), imag)
    return _onnx_complex_pair(stacked[..., 0], imag)
