"""ONX404's resize by a float scale computed from sizes (DINOv2's position embeddings): the
export-only helper `_onnx_interpolate_scaled` (onnxfix/decompositions/interpolate_scaled.py).
Three proofs: the helper's matrices equal ATen's resize within float rounding, the fixed model is
bit-identical in eager (the helper calls F.interpolate there), and it exports under dynamo and
matches eager in onnxruntime on other image sizes (tests/export_models/scaled_pos_embed.py)."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from onnxfix.cli import main as cli_main
from onnxfix.decompositions.interpolate_scaled import _onnx_interpolation_matrix
from onnxfix.exporter.targets import load_module

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.mark.parametrize("mode, align_corners", itertools.product(("bicubic", "bilinear"), (False, True)))
def test_the_interpolation_matrices_are_atens_resize(mode, align_corners):
    torch.manual_seed(0)
    for scale, shape in itertools.product((1.525, 0.7, 2.0, 3.3), ((2, 3, 5, 7), (1, 2, 16, 9))):
        x = torch.randn(*shape)
        height, width = shape[-2:]
        rows = _onnx_interpolation_matrix(height, math.floor(height * scale), scale, mode, align_corners, x)
        cols = _onnx_interpolation_matrix(width, math.floor(width * scale), scale, mode, align_corners, x)
        expected = F.interpolate(x, scale_factor=(scale, scale), mode=mode, align_corners=align_corners)
        torch.testing.assert_close(rows @ x @ cols.T, expected, rtol=1e-5, atol=1e-5)


def test_the_fixed_model_is_eager_identical_and_exports_on_other_sizes(tmp_path, capsys):
    copy = tmp_path / "scaled_pos_embed.py"
    shutil.copy(MODELS / "scaled_pos_embed.py", copy)
    code = cli_main(["export", "--format", "json", f"{copy}:make_model", "--exporter", "dynamo", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] in ("SILENTLY-WRONG", "ORT-FAILS"), before
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK" and code == 0, after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
    assert "_onnx_interpolate_scaled(self.position, scale_factor=" in copy.read_text()
    original, fixed = load_module(MODELS / "scaled_pos_embed.py"), load_module(copy)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            assert torch.equal(original.make_model()(*args), fixed.make_model()(*args))
