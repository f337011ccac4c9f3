"""(a) The torch.fft decompositions (onnxfix/decompositions/registry_fft.py) against torch.fft in
eager: every norm, cropped and zero-padded n / s, one-sided spectra whose zero and Nyquist
imaginary parts are not zero, float32 and float64, within the documented bound; (b) ONX406's
`_onnx_roll` bit-identical to torch.roll (negative and oversized shifts, dims=None, empty
dimensions, dtypes) and exported by both exporters with the rolled dimensions dynamic."""

from __future__ import annotations

import warnings

import pytest
import torch

from onnxfix.decompositions import load_function
from onnxfix.exporter import verify
from onnxfix.patterns.shape_math.roll import ROLL

BOUND = {torch.float32: 3e-7, torch.float64: 6e-16}  # x (1 + max|result|), registry_fft.py
V = torch.view_as_real


def helper(key):
    return load_function(key)


def close(got, want, dtype):
    scale = 1 + want.abs().max().item()
    assert got.shape == want.shape and got.dtype == want.dtype
    assert (got - want).abs().max().item() <= BOUND[dtype] * scale


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


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_inverse_transforms_within_bound(dtype, norm):
    g = torch.Generator().manual_seed(1)
    z = torch.complex(torch.randn(2, 4, 5, generator=g, dtype=dtype), torch.randn(2, 4, 5, generator=g, dtype=dtype))
    for s in [None, (4, 8), (4, 9), (3, 4), (6, 12)]:  # not Hermitian at 0 and n / 2: ignored, as pocketfft
        close(helper("irfftn")(V(z), s=s, dim=(-2, -1), norm=norm), torch.fft.irfftn(z, s=s, dim=(-2, -1), norm=norm), dtype)
    for n in [None, 8, 9, 3, 16]:
        close(helper("irfft")(V(z), n, norm=norm), torch.fft.irfft(z, n, norm=norm), dtype)


def test_integer_and_complex_inputs_as_torch():
    ints = torch.arange(6).reshape(2, 3)
    assert helper("fft")(ints).dtype == torch.float32
    close(helper("fft")(ints), V(torch.fft.fft(ints)), torch.float32)
    z = torch.randn(3, 5, dtype=torch.complex64)
    close(helper("fftn")(z), V(torch.fft.fftn(z)), torch.float32)


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
        got = verify.run_onnx(tmp_path / "roll.onnx", (x,), verify.input_names(model, 1))[0]
        assert torch.equal(torch.as_tensor(got), torch.roll(x, (shape[1] // 2, -(shape[2] // 3)), (-2, -1)))
