"""The random fills' decompositions (ONX538, onnxfix/decompositions/registry_random.py) draw from
the op's distribution in onnxruntime: no export reproduces PyTorch's draws, so their records' proofs
check only the draws' range, and this checks the moments of 200,000 draws of each exported model
against the distribution's (a mean or variance more than 0.01 off is at least six standard errors
away). Under dynamo `_onnx_exponential` keeps the op, which that exporter translates itself. And
float32_compute's float16 draws, made in float32."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import pytest
import torch

from onnxfix.decompositions import load_function
from onnxfix.exporter import comparison, verify
from onnxfix.exporter.decompose import decomposition_context

HELPERS: dict = {"torch": torch}
for _key in ("uniform", "exponential"):
    load_function(_key, HELPERS)


class Moments(torch.nn.Module):
    def forward(self, a):
        u = HELPERS["_onnx_uniform"](torch.empty_like(a), 2.0, to=3.0)
        e = HELPERS["_onnx_exponential"](torch.empty_like(a), 2.0)
        return torch.stack([u.mean(), u.var(), u.min(), u.max(), e.mean(), e.var(), e.min()])


@pytest.mark.parametrize("exporter", ["dynamo", "legacy"])
def test_exported_draws_have_the_distributions_moments(exporter):
    args = (torch.zeros(200_000),)
    with tempfile.TemporaryDirectory(prefix="onnxfix-random-") as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(folder) / "m.onnx"
        verify.export_model(Moments(), args, exporter, path, {})
        (moments,) = comparison.run_onnx(path, args, verify.input_names(Moments(), 1))
    u_mean, u_var, u_min, u_max, e_mean, e_var, e_min = moments.tolist()
    assert abs(u_mean - 2.5) < 0.01 and abs(u_var - 1 / 12) < 0.01 and 2.0 <= u_min and u_max < 3.0
    assert abs(e_mean - 0.5) < 0.01 and abs(e_var - 0.25) < 0.01 and e_min > 0.0  # `probs / q` stays finite


def test_uniform_draw_rounded_onto_the_upper_bound_becomes_the_lower(monkeypatch):
    """2 + (1 - 2**-24) is 3.0 in float32; ATen's uniform kernel returns `from` for a draw that
    rounds onto `to` (native/cpu/DistributionTemplates.h), and the export branch must too."""
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    monkeypatch.setattr(torch, "rand_like", lambda t: torch.tensor([1 - 2**-24, 0.5]))
    assert HELPERS["_onnx_uniform"](torch.empty(2), 2.0, to=3.0).tolist() == [2.0, 2.5]


class HalfNoise(torch.nn.Module):
    def forward(self, a):
        u, n = torch.rand(a.shape, dtype=a.dtype), torch.randn(a.shape, dtype=a.dtype)
        return torch.stack([u.float().max(), u.float().min(), n.float().mean()])


@pytest.mark.parametrize("exporter", ["dynamo", "legacy"])
def test_half_uniform_draws_drawn_in_float32_stay_below_one(exporter):
    """float32_compute draws a float16 factory's noise in float32 (onnxruntime has no kernel for the
    float16 draw torch.onnx writes for `torch.rand(..., dtype=float16)`):
    a float32 draw cast to float16 would round up to 1.0 about once in 4,000 draws; floored onto
    float16's step first, the draws stay in [0, 1) as ATen's do."""
    args = (torch.zeros(200_000, dtype=torch.float16),)
    with tempfile.TemporaryDirectory(prefix="onnxfix-random-") as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = Path(folder) / "m.onnx"
        with decomposition_context(["float32_compute"]):
            verify.export_model(HalfNoise(), args, exporter, path, {})
        (moments,) = comparison.run_onnx(path, args, verify.input_names(HalfNoise(), 1))
    u_max, u_min, n_mean = moments.tolist()
    assert u_max < 1.0 and u_min >= 0.0 and abs(n_mean) < 0.02
