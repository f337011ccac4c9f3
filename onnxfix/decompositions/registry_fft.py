"""Discrete Fourier transforms (ONX522): torch.fft's transforms of real inputs and the inverse of
one-sided spectra, as real matmuls against cos/sin matrices built from torch.arange of the
(possibly dynamic) transform sizes (``dft``).

ONNX runtimes carry no complex tensors and the legacy exporter has no symbolic for aten::fft_*:
the helpers return (and the inverses take) the spectrum as two real tensors stacked last, the
layout of ``torch.view_as_real``. So they are not drop-in replacements (``drop_in=False``): the
ONX522 source fix rewrites the call together with its consumers (``.abs()``, ``.real``, ``.imag``,
``torch.view_as_real``; ``torch.complex`` / ``torch.view_as_complex`` / ``torch.polar`` feeding an
inverse; support helpers ``complex_abs``, ``complex_angle``, ``complex``, ``polar``), and ``onnxfix export
--decompose`` leaves these ops alone. Every helper branches on ``torch.onnx.is_in_onnx_export()``:
the torch op outside export (bit-identical in eager), the DFT only while exporting."""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

NOTES = ("Outside export the torch op itself (torch.view_as_real of its result: eager outputs "
         "bit-identical); while exporting (torch.onnx.is_in_onnx_export()) an O(n^2) DFT per "
         "transformed dimension (two real matmuls against cos/sin matrices of the transform size, "
         "built in the graph from torch.arange, so sizes may be dynamic); "
         "the phase j * k is reduced mod n in integers before its float rounding. The result is "
         "the spectrum in torch.view_as_real's layout (real and imaginary parts stacked last). "
         "`s` entries of -1 are not supported. ")
BOUND = ("export path: max error 4e-7 x (1 + max|result|) in float32 and 1e-15 in float64 "
         "against torch.fft (measured worst over 3,000 random spectra on ATen's default and AVX2 "
         "kernels: 3.1e-7 and 7.3e-16), "
         "every norm, cropped and zero-padded `n`/`s`, sizes up to 16 "
         "(tests/test_decompositions_fft.py); onnxruntime within 1e-6 on new sizes")

PAIR_NOTES = (
    "While exporting, complex values are _onnx_complex_pair objects holding the real and imaginary "
    "parts (ONNX has no complex tensors): products, sums, conj, abs, indexing, reshapes and `.to()` "
    "work on the parts, `torch.view_as_real` stacks them. A complex RoPE (Llama's polar frequencies times "
    "view_as_complex pairs) exports under both exporters. An op the pair lacks raises, naming it."
    " Eager keeps the op (guarded helper): complex products written out may round otherwise than ATen's kernel."
)

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "fftn", ("torch.fft.fftn",), False, (), ("https://github.com/pytorch/pytorch/issues/128324",),
        NOTES + "Complex inputs are split into real and imaginary parts in eager (they cannot be exported).",
        requires=("dft",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.view_as_real(torch.fft.fftn(a, dim=(1, -1), norm='ortho'))",
                    "_onnx_fftn(a, dim=(1, -1), norm='ortho')", "(randn(g, b, 5, 3, 6),)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "fft", ("torch.fft.fft",), False, ("fft.fft",), (),
        NOTES + "Through _onnx_fftn.",
        requires=("fftn",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.view_as_real(torch.fft.fft(a, 9, 1))", "_onnx_fft(a, 9, 1)", "(randn(g, b, 7, 3),)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "fft2", ("torch.fft.fft2",), False, ("fft.fft2",), (PYTORCH + "149332",),
        NOTES + "Through _onnx_fftn.",
        requires=("fftn",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.view_as_real(torch.fft.fft2(a))", "_onnx_fft2(a)", "(randn(g, b, 3, 6, 5),)",
                    decomposition_tol=2e-6),
    ),
    Decomposition(
        "rfftn", ("torch.fft.rfftn",), False, ("fft.rfftn ortho",),
        (PYTORCH + "125296", "https://github.com/onnx/onnx/issues/4843"),
        NOTES + "The last transformed dimension one-sided (n // 2 + 1 frequencies).",
        requires=("dft",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.view_as_real(torch.fft.rfftn(a, dim=(-2, -1), norm='forward'))",
                    "_onnx_rfftn(a, dim=(-2, -1), norm='forward')", "(randn(g, b, 6, 8),)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "rfft", ("torch.fft.rfft",), False, ("fft.rfft",), (),
        NOTES + "Through _onnx_rfftn.",
        requires=("rfftn",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.view_as_real(torch.fft.rfft(a, 6))", "_onnx_rfft(a, 6)", "(randn(g, b, 3, 7),)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "irfftn", ("torch.fft.irfftn",), False, (), ("https://github.com/onnx/onnx/issues/4843",),
        NOTES + "The input is a one-sided spectrum in torch.view_as_real's layout (`dim` counts the "
        "complex tensor's dimensions); as pocketfft's c2r, the imaginary parts of the zero and "
        "Nyquist frequencies are ignored.",
        requires=("dft",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.fft.irfftn(torch.view_as_complex(a), s=(4, 6), dim=(-2, -1), norm='ortho')",
                    "_onnx_irfftn(a, s=(4, 6), dim=(-2, -1), norm='ortho')", "(randn(g, b, 3, 4, 4, 2),)",
                    decomposition_tol=1e-6),
    ),
    Decomposition(
        "irfft", ("torch.fft.irfft",), False, ("fft.irfft",), (),
        NOTES + "Through _onnx_irfftn.",
        requires=("irfftn",), drop_in=False, error_bound=BOUND, rule="ONX522",
        proof=Proof("torch.fft.irfft(torch.view_as_complex(a), 9)", "_onnx_irfft(a, 9)", "(randn(g, b, 3, 5, 2),)",
                    decomposition_tol=1e-6),
    ),
    # ---- complex values carried as (real, imaginary) pairs while exporting: ONX526 ----
    Decomposition(
        "pair_view_as_complex", ("torch.view_as_complex",), False, ("complex rope", "view_as_complex mul"),
        ("https://github.com/pytorch/pytorch/issues/59246", "https://github.com/meta-llama/llama/issues/1041"),
        PAIR_NOTES, requires=("complex_pair",), drop_in=False, rule="ONX526",
        proof=Proof("torch.view_as_real(torch.view_as_complex(a) * torch.view_as_complex(c)[:, None])",
                    "torch.view_as_real(_onnx_pair_view_as_complex(a) * _onnx_pair_view_as_complex(c)[:, None])",
                    "(randn(g, b, 3, 2), randn(g, b, 2))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "pair_polar", ("torch.polar",), False, ("complex rope", "polar"), (),
        PAIR_NOTES, requires=("complex_pair",), drop_in=False, rule="ONX526",
        proof=Proof("torch.view_as_real(torch.polar(a.abs(), c) * 0.5 + 1.0)",
                    "torch.view_as_real(_onnx_pair_polar(a.abs(), c) * 0.5 + 1.0)",
                    "(randn(g, b, 4), randn(g, b, 4))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "pair_complex", ("torch.complex",), False, ("complex abs",), (),
        PAIR_NOTES, requires=("complex_pair",), drop_in=False, rule="ONX526",
        proof=Proof("torch.view_as_real(torch.complex(a, c) - torch.complex(c, a).conj()) + torch.complex(a, c).abs()[..., None]",
                    "torch.view_as_real(_onnx_pair_complex(a, c) - _onnx_pair_complex(c, a).conj()) + _onnx_pair_complex(a, c).abs()[..., None]",
                    "(randn(g, b, 4), randn(g, b, 4))", params="a, c", decomposition_tol=1e-6),
    ),
    Decomposition(
        "pair_rfft2", ("torch.fft.rfft2",), False, ("rfft2 filter",),
        ("https://github.com/onnx/onnx/issues/3573", PYTORCH + "81075"),
        PAIR_NOTES + " The spectrum is _onnx_rfftn's DFT (sizes from the input); torch.fft.irfft, irfft2 and "
        "irfftn of a pair run _onnx_irfftn on its parts, so a global filter (rfft2, a complex product, irfft2) "
        "exports whole.", requires=("complex_pair", "rfftn", "irfftn"), drop_in=False, rule="ONX526",
        error_bound=BOUND,
        proof=Proof("torch.fft.irfft2(torch.fft.rfft2(a, norm='ortho') * c, s=(3, 6), norm='ortho')",
                    "torch.fft.irfft2(_onnx_pair_rfft2(a, norm='ortho') * c, s=(3, 6), norm='ortho')",
                    "(randn(g, b, 3, 6), randn(g, 3, 4))", params="a, c", static=(1,), decomposition_tol=1e-6),
    ),
    Decomposition(
        "pair_fourier", ("torch.fft.fft", "torch.fft.fft2", "torch.fft.fftn", "torch.fft.ifft", "torch.fft.ifft2",
                         "torch.fft.ifftn", "torch.fft.rfft"), False, (),
        ("https://github.com/pytorch/pytorch/issues/149332", "https://github.com/ChenyangSi/FreeU/issues/12"),
        PAIR_NOTES + " torch.fft's complex transforms (fft, fft2, fftn, their inverses, rfft) of a real tensor or "
        "a pair: the spectrum as a pair of _onnx_dft's parts, so a spectral filter (fft2 or fftn, fftshift, a "
        "real mask, ifft2 or ifftn, `.real` or `abs`: FreeU's Fourier filter, frequency-attention blocks) "
        "exports under the legacy exporter, which has no aten::fft_*. Export time only (`static=False`: "
        "ONX522's source fixes write the stacked layout).",
        # irfftn: the irfft / irfft2 / irfftn of a pair it makes (FFC's rfftn, filter, irfftn)
        requires=("complex_pair", "dft", "rfftn", "irfftn"), drop_in=False, static=False, wraps_op=True, rule="ONX526",
        error_bound=BOUND,
        proof=Proof(
            "torch.fft.ifft2(torch.fft.fft2(a, norm='ortho') * c, norm='ortho').real"
            " + torch.fft.ifftn(torch.fft.ifftshift(torch.fft.fftshift(torch.fft.fftn(a, dim=(-2, -1))) * c, dim=-1),"
            " dim=(-2, -1)).imag"
            " + torch.fft.ifft(torch.fft.fft(a, 8), 6).abs() + torch.fft.rfft(a, 10).abs()[..., :6]",
            "_onnx_pair_fourier(torch.fft.ifft2, _onnx_pair_fourier(torch.fft.fft2, a, norm='ortho') * c, norm='ortho').real"
            " + _onnx_pair_fourier(torch.fft.ifftn, torch.fft.ifftshift(torch.fft.fftshift("
            "_onnx_pair_fourier(torch.fft.fftn, a, dim=(-2, -1))) * c, dim=-1), dim=(-2, -1)).imag + _onnx_pair_fourier(torch.fft.ifft, _onnx_pair_fourier(torch.fft.fft, a, 8), 6).abs()"
            " + _onnx_pair_fourier(torch.fft.rfft, a, 10).abs()[..., :6]",
            "(randn(g, b, 3, 6), randn(g, 3, 6))", params="a, c", static=(1,), decomposition_tol=1e-5),
    ),
    Decomposition(
        "pair_istft", ("torch.istft",), False, (), ("https://github.com/speechbrain/speechbrain/issues/1455",),
        PAIR_NOTES + " torch.istft of a spectrum carried as a pair (view_as_complex, torch.complex, a stft "
        "under legacy): the pair computes it as each frame's _onnx_irfftn, windowed and overlap-added, which "
        "this helper brings into the file (MetricGAN's resynthesis, iSTFT vocoder heads). Reported only where "
        "the spectrum carries a pair.",
        # pair_view_as_complex: the proof's spectrum (files whose istft takes a pair have a producer anyway)
        requires=("complex_pair", "irfftn", "pair_view_as_complex"), drop_in=False, rule="ONX526",
        proof=Proof("torch.istft(torch.view_as_complex(a), 8, 2, window=torch.hann_window(8))",
                    "_onnx_pair_istft(_onnx_pair_view_as_complex(a), 8, 2, window=torch.hann_window(8))",
                    "(randn(g, b, 5, 6, 2),)", decomposition_tol=1e-5),
    ),
    Decomposition(
        "pair_scalar", ("Tensor.__mul__", "Tensor.__rmul__", "Tensor.mul", "torch.mul"), False, (),
        ("https://github.com/MasayaKawamura/MB-iSTFT-VITS/issues/8", "https://github.com/gemelo-ai/vocos/issues/38"),
        PAIR_NOTES + " A real tensor times a Python complex number (`phase * 1j`) starts a pair, so "
        "`torch.istft(mag * torch.exp(phase * 1j), ...)` (iSTFTNet) and `torch.fft.irfft(mag * (x + 1j * y))` "
        "(Vocos) export: exp, istft and irfft take pairs. Export time only (`static=False`): a source "
        "rule would report every product.",
        requires=("complex_pair", "irfftn"), drop_in=False, static=False, rule="ONX526",
        proof=Proof("torch.istft(a.exp() * torch.exp(torch.mul(c, 1j)), 8, 2, window=torch.hann_window(8))",
                    "torch.istft(_onnx_pair_scalar(a.exp(), 1) * torch.exp(_onnx_pair_scalar(c, 1j)), 8, 2, "
                    "window=torch.hann_window(8))",
                    "(randn(g, b, 5, 6), randn(g, b, 5, 6))", params="a, c", decomposition_tol=1e-5),
    ),
    Decomposition(
        "angle", ("torch.angle", "Tensor.angle"), True, (), (PYTORCH + "162570",),
        "torch.angle. Of a complex value (a phase spectrum: iSTFTNet vocoders' `torch.angle(torch.stft(...))`), "
        "pi on the negative real axis at a +0 imaginary part, which a real signal's DC and Nyquist bins always "
        "have: the dynamo exporter writes Atan2 of the parts, -pi there, so while exporting _onnx_atan2 of the "
        "parts (a pair the legacy exporter's helpers made takes its own angle). Of a real tensor, pi where "
        "negative and 0 elsewhere, NaN kept, which the legacy exporter has no symbolic for. Reported for the "
        "dynamo exporter where the value carries a pair (ONX526's producers: stft, torch.complex, polar, "
        "view_as_complex), for the legacy one elsewhere. Eager keeps the op (guarded helper).",
        # pair_complex: the proof's complex value (files whose angle takes a pair have a producer anyway)
        requires=("atan2", "pair_complex"), rule="ONX526",
        proof=Proof("torch.angle(a) + torch.angle(torch.complex(a, torch.where(c > 0, c, torch.zeros_like(c))))",
                    "_onnx_angle(a) + _onnx_angle(_onnx_pair_complex(a, torch.where(c > 0, c, torch.zeros_like(c))))",
                    "(randn(g, b, 6), randn(g, b, 6))", params="a, c", decomposition_tol=1e-6),
    ),
)
# Helpers that decompose nothing alone.
SUPPORT: tuple[str, ...] = ("dft", "complex_abs", "complex_angle", "complex", "polar", "complex_pair")
