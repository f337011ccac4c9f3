"""ONX404's resize by a float scale computed from sizes (DINOv2's position embeddings): the
export-only helper `_onnx_interpolate_scaled` (onnxfix/decompositions/interpolate_scaled.py).
Three proofs: the helper's matrices equal ATen's resize within float rounding, the fixed model is
bit-identical in eager (the helper calls F.interpolate there), and it exports under both exporters
and matches eager in onnxruntime on other image sizes (tests/export_models/scaled_pos_embed.py).
The same helper is `onnxfix export --fix`'s repair of a scale read out of a tensor, which
torch.export refuses (tests/export_models/item_scale_resize.py: RIFE's `scale.item()`)."""

from __future__ import annotations

import itertools
import json
import math
import shutil
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from export_cli import written_and_proven
from onnxfix.cli import main as cli_main
from onnxfix.decompositions.interpolate_scaled import _onnx_interpolation_matrix, _onnx_resize_matrix
from onnxfix.exporter.targets import load_module

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.mark.parametrize("align_corners", (False, True))
def test_the_interpolation_matrices_are_atens_resize(align_corners):
    torch.manual_seed(0)
    for scale, shape in itertools.product((1.525, 0.7, 2.0, 3.3, 0.3), ((2, 3, 5, 7), (1, 2, 16, 9))):
        x = torch.randn(*shape)
        height, width = shape[-2:]
        rows = _onnx_interpolation_matrix(height, math.floor(height * scale), scale, align_corners, x.dtype, x.device)
        cols = _onnx_interpolation_matrix(width, math.floor(width * scale), scale, align_corners, x.dtype, x.device)
        expected = F.interpolate(x, scale_factor=(scale, scale), mode="bicubic", align_corners=align_corners)
        torch.testing.assert_close(rows @ x @ cols.T, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ("linear", "bilinear"))
@pytest.mark.parametrize("align_corners", (False, True))
@pytest.mark.parametrize("recompute_scale_factor", (None, True))
def test_the_linear_matrices_are_atens_resize(mode, align_corners, recompute_scale_factor):
    """Scales whose output keeps the size (1.0125 of 8, 1.004 of 200: ATen copies, whatever the
    scale) included."""
    torch.manual_seed(0)
    for scale, size in itertools.product((1.525, 0.7, 2.0, 2.01, 3.3, 0.3, 1.0125, 1.004, 1 / 3), (5, 8, 16, 37, 200)):
        x = torch.randn(1, 2, size + 1, size) if mode != "linear" else torch.randn(2, 3, size)
        matrices = [_onnx_resize_matrix(mode, n, math.floor(n * scale), None if recompute_scale_factor else scale,
                                        align_corners, x.dtype, x.device) for n in x.shape[2:]]
        got = x @ matrices[-1].T
        got = matrices[0] @ got if len(matrices) == 2 else got
        expected = F.interpolate(x, scale_factor=scale, mode=mode, align_corners=align_corners,
                                 recompute_scale_factor=recompute_scale_factor)
        # float32 source positions near 200 carry ~1e-5 of rounding into the weights (ATen's too)
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", (torch.float16, torch.bfloat16))
def test_half_precision_is_resized_in_float32_and_rounded_once(dtype):
    """ATen computes a half-precision resize in float32: so do the matrices (in float16 or
    bfloat16 the source index itself would round away)."""
    torch.manual_seed(0)
    x = torch.randn(1, 4, 37, 37).to(dtype)
    rows = _onnx_interpolation_matrix(37, math.floor(37 * 1.7), 1.7, False, torch.float32, x.device)
    got = (rows @ x.float() @ rows.T).to(dtype)
    expected = F.interpolate(x, scale_factor=(1.7, 1.7), mode="bicubic")
    torch.testing.assert_close(got.float(), expected.float(), rtol=0, atol=0.02)


def test_the_fixed_model_is_eager_identical_and_exports_on_other_sizes(tmp_path, capsys):
    copy = tmp_path / "scaled_pos_embed.py"
    shutil.copy(MODELS / "scaled_pos_embed.py", copy)
    code = cli_main(["export", "--format", "json", f"{copy}:make_model", "--exporter", "both", "--write"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    before = {r["exporter"]: r for r in target["results"]}
    assert before["dynamo"]["verdict"] in ("SILENTLY-WRONG", "ORT-FAILS"), before
    # the legacy tracer holds the scale as a tensor, which F.interpolate refuses
    assert before["legacy"]["verdict"] == "EXPORT-FAILS" and "upsample_bicubic2d" in before["legacy"]["error"]
    for after in target["fix"]["results"]:  # the matrices built from the symbolic scale, or the traced one
        assert after["verdict"] == "OK", after
        assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
    assert code == 0
    assert "_onnx_interpolate_scaled(self.position, scale_factor=" in copy.read_text()
    original, fixed = load_module(MODELS / "scaled_pos_embed.py"), load_module(copy)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            assert torch.equal(original.make_model()(*args), fixed.make_model()(*args))


def test_an_antialiased_resize_by_a_scale_from_sizes_exports_under_both(tmp_path, capsys):
    """`F.interpolate(image, scale_factor=16 / image.shape[2], mode="bilinear", antialias=True)`:
    dynamo fails (the scale specialized, then a traced variable in control flow), legacy fails
    (a tensor scale); ONX404's helper builds torch's filter weights from the scale, and both
    exports match eager on other image sizes; eager is bit-identical."""
    written = written_and_proven(tmp_path, capsys, "scale_from_height_antialias.py", ["EXPORT-FAILS", "EXPORT-FAILS"])
    assert "def _onnx_resample_antialias_weights(" in written


def test_a_scale_read_out_of_a_tensor_exports_through_the_interpolate_repair(tmp_path, capsys):
    """torch.export refuses `F.interpolate(x, scale_factor=1. / scale.item())`; `--fix` exports
    with the interpolate decomposition (named by that error), the source untouched, and the ONNX
    model resizes by the scale it is given: 2, 4, 1 (the copy) and 1 / 0.7 (an output size floored in
    float64, 6 of 10 where float32 gives 7) match eager."""
    copy = tmp_path / "item_scale_resize.py"
    shutil.copy(MODELS / "item_scale_resize.py", copy)
    code = cli_main(["export", "--format", "json", f"{copy}:make_model", "--exporter", "dynamo", "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "SymFloat" in before["error"], before
    assert target["fix"]["decompositions"] == ["interpolate"], target["fix"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK" and code == 0, after
    assert [p["probe"] for p in after["probes"] if p["ok"]][:4] == ["export inputs", "probe 1 (user)", "probe 2 (user)", "probe 3 (user)"]
    assert copy.read_text() == (MODELS / "item_scale_resize.py").read_text()
