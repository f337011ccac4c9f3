"""(a) The torch.fft decompositions (onnxfix/decompositions/registry_fft.py): outside export the
helpers (and the consumers' _onnx_complex_abs / _onnx_complex_angle / _onnx_complex / _onnx_polar) are bit-identical to
torch (every dtype torch.fft takes, strides kept, the same errors), and so is the ONX522 fixture
rewritten; their export path (torch.onnx.is_in_onnx_export() patched True) against torch.fft:
every norm, cropped and zero-padded n / s, one-sided spectra whose zero and Nyquist imaginary
parts are not zero, float32 and float64, within the documented bound; (b) ONX406's
`_onnx_roll` bit-identical to torch.roll (negative and oversized shifts, dims=None, empty
dimensions, dtypes) and exported by both exporters with the rolled dimensions dynamic."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import torch

from fixture_exports import load

from onnxfix.decompositions import load_function
from onnxfix.exporter import comparison, verify
from onnxfix.patterns.shape_math.roll import ROLL

BOUND = {torch.float32: 4e-7, torch.float64: 1e-15}  # x (1 + max|result|), registry_fft.py
V = torch.view_as_real


def helper(key):
    return load_function(key)


@pytest.fixture
def exporting(monkeypatch):
    """The helpers' export path, run in eager: what both exporters trace."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)


def same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert torch.equal(got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.complex64, torch.complex128])
def test_eager_is_bit_identical(dtype):
    x = (torch.randn(2, 3, 7, 6, generator=torch.Generator().manual_seed(3)) * 4).to(dtype)
    t = x.transpose(1, 3)  # non-contiguous input
    for norm in [None, "ortho", "forward"]:
        same(helper("fft")(t, 9, 2, norm), V(torch.fft.fft(t, 9, 2, norm)))
        same(helper("fft2")(t, norm=norm), V(torch.fft.fft2(t, norm=norm)))
        same(helper("fftn")(x, (5, 9), (1, 3), norm), V(torch.fft.fftn(x, (5, 9), (1, 3), norm)))
        same(helper("complex_abs")(helper("fft2")(t, norm=norm)), torch.fft.fft2(t, norm=norm).abs())
        same(helper("complex_angle")(helper("fft2")(t, norm=norm)), torch.fft.fft2(t, norm=norm).angle())
        if not dtype.is_complex:
            same(helper("rfft")(t, 5, 1, norm), V(torch.fft.rfft(t, 5, 1, norm)))
            spectrum = helper("rfftn")(t, dim=(-2, -1), norm=norm)
            same(spectrum, V(torch.fft.rfftn(t, dim=(-2, -1), norm=norm)))
            same(helper("irfftn")(spectrum, t.shape[-2:], (-2, -1), norm), torch.fft.irfftn(torch.fft.rfftn(t, dim=(-2, -1), norm=norm), t.shape[-2:], (-2, -1), norm))
            same(helper("irfft")(spectrum, 7, 1, norm), torch.fft.irfft(torch.fft.rfftn(t, dim=(-2, -1), norm=norm), 7, 1, norm))
        if dtype.is_floating_point:
            r, theta = t.abs(), t.flip(0)
            same(helper("irfft")(helper("polar")(r, theta), 8, norm=norm), torch.fft.irfft(torch.polar(r, theta), 8, norm=norm))
            same(helper("irfftn")(helper("complex")(t, theta[:1]), norm=norm), torch.fft.irfftn(torch.complex(t, theta[:1]), norm=norm))


def test_eager_keeps_torch_errors():
    half = torch.randn(4, 8).half()
    for key, op in [("fft", torch.fft.fft), ("rfft", torch.fft.rfft)]:
        with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
            op(half)
        with pytest.raises(RuntimeError, match="Unsupported dtype Half"):
            helper(key)(half)
    with pytest.raises(RuntimeError):
        helper("complex")(torch.randn(3), torch.randn(3, dtype=torch.float64))  # torch.complex: dtypes differ


def test_fixture_rewrite_is_bit_identical_in_eager():
    folder = Path(__file__).parent / "fixtures" / "ONX522"
    before, after = load(folder / "spectral_features.py"), load(folder / "spectral_features.fixed.py")
    for batch, seed in ((2, 0), (3, 1)):
        args = before.inputs(batch, seed)
        with torch.no_grad():
            want, got = before.make_model()(*args), after.make_model()(*args)
        for w, g in zip(want, got, strict=True):
            same(g, w)


def close(got, want, dtype):
    scale = 1 + want.abs().max().item()
    assert got.shape == want.shape and got.dtype == want.dtype
    assert (got - want).abs().max().item() <= BOUND[dtype] * scale


@pytest.mark.usefixtures("exporting")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_forward_transforms_within_bound(dtype, norm):
    x = torch.randn(2, 3, 7, 6, generator=torch.Generator().manual_seed(0), dtype=dtype)
    close(helper("fft2")(x, norm=norm), V(torch.fft.fft2(x, norm=norm)), dtype)
    close(helper("fftn")(x, norm=norm), V(torch.fft.fftn(x, norm=norm)), dtype)
    close(helper("fftn")(x, s=(5, 9), norm=norm), V(torch.fft.fftn(x, s=(5, 9), norm=norm)), dtype)
    close(helper("fft")(x, 9, 2, norm=norm), V(torch.fft.fft(x, 9, 2, norm=norm)), dtype)
    close(helper("rfft")(x, 5, 1, norm=norm), V(torch.fft.rfft(x, 5, 1, norm=norm)), dtype)
    close(helper("rfftn")(x, dim=(-2, -1), norm=norm), V(torch.fft.rfftn(x, dim=(-2, -1), norm=norm)), dtype)
    close(helper("rfftn")(x, s=(4, 16), norm=norm), V(torch.fft.rfftn(x, s=(4, 16), norm=norm)), dtype)


@pytest.mark.usefixtures("exporting")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_inverse_transforms_within_bound(dtype, norm):
    g = torch.Generator().manual_seed(1)
    z = torch.complex(torch.randn(2, 4, 5, generator=g, dtype=dtype), torch.randn(2, 4, 5, generator=g, dtype=dtype))
    for s in [None, (4, 8), (4, 9), (3, 4), (6, 12)]:  # not Hermitian at 0 and n / 2: ignored, as pocketfft
        close(helper("irfftn")(V(z), s=s, dim=(-2, -1), norm=norm), torch.fft.irfftn(z, s=s, dim=(-2, -1), norm=norm), dtype)
    for n in [None, 8, 9, 3, 16]:
        close(helper("irfft")(V(z), n, norm=norm), torch.fft.irfft(z, n, norm=norm), dtype)


@pytest.mark.usefixtures("exporting")
def test_integer_and_complex_inputs_as_torch():
    ints = torch.arange(6).reshape(2, 3)
    assert helper("fft")(ints).dtype == torch.float32
    close(helper("fft")(ints), V(torch.fft.fft(ints)), torch.float32)
    z = torch.randn(3, 5, dtype=torch.complex64, generator=torch.Generator().manual_seed(3))  # not the suite's order
    close(helper("fftn")(z), V(torch.fft.fftn(z)), torch.float32)


@pytest.mark.usefixtures("exporting")
def test_consumer_helpers_export_path():
    z = torch.randn(4, 6, dtype=torch.complex64, generator=torch.Generator().manual_seed(4))
    close(helper("complex_abs")(V(z)), z.abs(), torch.float32)
    close(helper("complex_angle")(V(z)), z.angle(), torch.float32)
    assert torch.equal(helper("complex")(z.real, z.imag), V(z))
    r, theta = z.abs(), z.angle()
    close(helper("polar")(r, theta), V(torch.polar(r, theta)), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.complex64])
def test_roll_bit_identical(dtype):
    namespace = {"torch": torch}
    exec(ROLL.source, namespace)
    roll = namespace["_onnx_roll"]
    x = torch.randn(3, 5, 4, generator=torch.Generator().manual_seed(2)).to(dtype)
    for shifts, dims in [(2, 1), (-7, -1), ((1, 13), (0, 2)), ((5, -3), (-2, -1)), (4, None), ((-9,), None)]:
        assert torch.equal(roll(x, shifts, dims), torch.roll(x, shifts, dims))
    empty = torch.zeros(2, 0, 3, dtype=dtype)
    assert torch.equal(roll(empty, 3, 1), torch.roll(empty, 3, 1))
    with pytest.raises(RuntimeError):
        roll(x, (1, 2), 0)


@pytest.mark.plumbing
@pytest.mark.parametrize("exporter", ["dynamo", "legacy"])
def test_roll_by_sizes_exports_with_dynamic_sizes(exporter, tmp_path):
    namespace = {"torch": torch}
    exec(ROLL.source, namespace)

    class Centred(torch.nn.Module):
        def forward(self, x):
            return namespace["_onnx_roll"](x, (x.shape[-2] // 2, -(x.shape[-1] // 3)), (-2, -1))

    model = Centred().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verify.export_model(model, (torch.randn(1, 6, 8),), exporter, tmp_path / "roll.onnx", {0: {1: "h", 2: "w"}})
    for shape in [(1, 6, 8), (1, 9, 11), (1, 4, 5)]:  # dims 1 and 2 dynamic
        x = torch.randn(*shape)
        got = comparison.run_onnx(tmp_path / "roll.onnx", (x,), verify.input_names(model, 1))[0]
        assert torch.equal(torch.as_tensor(got), torch.roll(x, (shape[1] // 2, -(shape[2] // 3)), (-2, -1)))


@pytest.mark.plumbing
def test_exported_stft_phase_at_dc_and_nyquist_is_eagers(tmp_path):
    """A real signal's DC and Nyquist bins: ATen's real-to-complex FFT writes +0 imaginary parts,
    so torch.angle of a negative real part there is pi; onnxruntime's STFT leaves roundings of
    either sign (-pi). The legacy pair (`_onnx_pair_stft`, its angle through _onnx_atan2) gives
    eager's phases there exactly (StyleTTS2's iSTFTNet feeds the phase to a conv)."""
    namespace = {"torch": torch}
    stft = load_function("pair_stft", namespace)
    window = torch.hann_window(16)

    class Phase(torch.nn.Module):
        def forward(self, x):
            return torch.angle(stft(x, 16, 4, window=window, return_complex=True))

    x = torch.randn(2, 200) - 3.0  # a negative DC in every frame
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verify.export_model(Phase().eval(), (x,), "legacy", tmp_path / "phase.onnx", {0: {0: "b", 1: "n"}})
    y = torch.randn(3, 260) - 3.0
    (got,) = comparison.run_onnx(tmp_path / "phase.onnx", (y,), verify.input_names(Phase(), 1))
    want = torch.stft(y, 16, 4, window=window, return_complex=True).angle()
    edges = [0, 8]  # DC and Nyquist of n_fft 16
    assert torch.equal(torch.as_tensor(got)[:, edges], want[:, edges])

