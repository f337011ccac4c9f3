"""Complex tensors as (real, imaginary) pairs while exporting (ONX526's helpers, and the
complex_pairs export repair that substitutes them): with the export flag on, each complex
computation gives what eager's complex kernels give (to float rounding: products are written
out), and an op the pairs do not implement says so."""

from __future__ import annotations

import pytest
import torch

from onnxfix.exporter.decompose import decomposition_context


def _rope(x, freqs):
    cis = torch.polar(torch.ones_like(freqs), freqs) * 0.5
    pairs = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(pairs * cis[:, None, :].to(x.device)).flatten(2)


def _arithmetic(a, b):
    u, v = torch.view_as_complex(a), torch.view_as_complex(b)
    w = torch.complex(a[..., 0], b[..., 1])
    mixed = (u + v) - (2.0 * w) + a[..., 0] - (a[..., 1] - u) + (v.conj() * a[..., 1])
    return torch.view_as_real(mixed[1:].unsqueeze(0).transpose(0, 1)), u.abs(), (u * v).angle(), w.real, w.imag


@pytest.mark.parametrize("case", [_rope, _arithmetic])
def test_pairs_compute_what_complex_tensors_compute(case, monkeypatch):
    g = torch.Generator().manual_seed(0)
    args = (torch.randn(3, 4, 8, generator=g), torch.randn(3, 4, generator=g)) if case is _rope else \
        (torch.randn(3, 5, 2, generator=g), torch.randn(3, 5, 2, generator=g))
    want = case(*args)
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    with decomposition_context(["complex_pairs"]):
        got = case(*args)
    for g_, w_ in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g_.dtype == w_.dtype and g_.shape == w_.shape
        torch.testing.assert_close(g_, w_, rtol=1e-6, atol=1e-6)


def test_an_unsupported_op_of_a_pair_names_the_op(monkeypatch):
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    with decomposition_context(["complex_pairs"]), pytest.raises(TypeError, match="sin of a complex tensor carried"):
        torch.sin(torch.view_as_complex(torch.randn(3, 2)))


def _global_filter(x, weight):
    # GFNet: rfft2, a complex filter (a complex parameter, as a complex tensor), irfft2
    spectrum = torch.fft.rfft2(x, dim=(1, 2), norm="ortho") * torch.view_as_complex(weight)
    return torch.fft.irfft2(spectrum, s=(x.shape[1], x.shape[2]), dim=(1, 2), norm="ortho")


def _complex_linear(x, weight):
    # a complex linear layer: a real input made complex, matmul and einsum with complex weights,
    # divided by a real scale
    w = torch.view_as_complex(weight)
    h = torch.matmul(torch.complex(x, torch.zeros_like(x)), w.T) / 2.0
    return torch.einsum("bi,oi->bo", h, w.conj()).abs(), (h @ w).real


def _spectrogram(x, _):
    return torch.stft(x, 16, window=torch.hann_window(16), return_complex=True).abs()


def _istft_vocoder(magnitude, phase):
    # iSTFTNet's head: a spectrum made complex by `phase * 1j`, exp, then torch.istft
    spectrum = magnitude.exp() * torch.exp(phase * 1j)
    return torch.istft(spectrum, 16, 4, window=torch.hann_window(16), length=30)


def _irfft_head(x, p):
    # Vocos: `mag * (cos + 1j * sin)`, then torch.fft.irfft of the frames
    spectrum = x.exp() * (torch.cos(p) + 1j * torch.sin(p))
    return torch.fft.irfft(spectrum, 16, dim=1, norm="backward")


@pytest.mark.parametrize("case, shapes", [
    (_istft_vocoder, ((2, 9, 7), (2, 9, 7))),
    (_irfft_head, ((2, 9, 7), (2, 9, 7))),
    (_global_filter, ((2, 4, 6, 3), (4, 4, 3, 2))),
    (_complex_linear, ((3, 5), (5, 5, 2))),
    (_spectrogram, ((2, 64), (1,))),
])
def test_products_ffts_and_stft_of_pairs(case, shapes, monkeypatch):
    g = torch.Generator().manual_seed(0)
    args = tuple(torch.randn(*shape, generator=g) for shape in shapes)
    want = case(*args)
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    with decomposition_context(["complex_pairs"]):
        got = case(*args)
    for g_, w_ in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g_.dtype == w_.dtype and g_.shape == w_.shape
        torch.testing.assert_close(g_, w_, rtol=1e-5, atol=1e-5)


def test_export_time_only_repairs_record_no_call_site(monkeypatch):
    """pair_scalar substitutes every product while exporting (most are plain products): no
    site is recorded, so `onnxfix export --fix` never writes it at a user's line."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    a, b = torch.randn(3), torch.randn(3)
    with decomposition_context(["complex_pairs"]) as mode:
        torch.mul(a, b), a.mul(2.0), torch.view_as_real(a * 1j)
    assert mode.used.get("pair_scalar") and mode.sites == set()
