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
    with decomposition_context(["complex_pairs"]), pytest.raises(TypeError, match="exp of a complex tensor carried"):
        torch.exp(torch.view_as_complex(torch.randn(3, 2)))
