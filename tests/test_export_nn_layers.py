"""Export-time settings for torch.nn's own layers (exporter/nn_layers.py): the causal-mask check
of nn.TransformerDecoder, keyed on the failing frame (`_detect_is_causal_mask`), not on the
message, which names only the user's line (tests/export_models/causal_decoder_mask.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from onnxfix.cli import main as cli_main
from onnxfix.exporter.nn_layers import causal_mask_check_off
from onnxfix.exporter.targets import load_module

MODELS = Path(__file__).parent / "export_models"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_the_causal_mask_check_is_repaired_at_export_from_its_frame(capsys):
    cli_main(["export", "--format", "json", f"{MODELS / 'causal_decoder_mask'}.py:make_model", "--exporter", "dynamo",
              "--fix"])
    (target,) = json.loads(capsys.readouterr().out)["targets"]
    (before,) = target["results"]
    assert before["verdict"] == "EXPORT-FAILS" and "data-dependent expression" in before["error"]
    assert "causal_mask_check_off" in target["fix"]["decompositions"]
    (after,) = target["fix"]["results"]
    assert after["verdict"] == "OK", after
    assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]


def test_eager_keeps_the_check_and_the_same_outputs():
    """Inside the setting the layers apply the mask as given; the outputs equal eager's to float
    rounding (another kernel path), and outside it eager runs exactly as before."""
    module = load_module(MODELS / "causal_decoder_mask.py")
    model, args = module.make_model(), module.example_inputs()
    detect = torch.nn.modules.transformer._detect_is_causal_mask
    with torch.no_grad():
        expected = model(*args)
        with causal_mask_check_off():
            inside = model(*args)
        after = model(*args)
    assert torch.nn.modules.transformer._detect_is_causal_mask is detect
    assert torch.equal(expected, after)
    torch.testing.assert_close(inside, expected, rtol=1e-5, atol=1e-5)
