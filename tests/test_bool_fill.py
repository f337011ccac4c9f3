"""ONX531's bool fill: `torch.full(size, True, dtype=mask.dtype)`, `x.new_full(size, False)`,
`torch.full_like(x, True)` and a bool fill choosing the dtype (`torch.full(size, True)`) filled
with the int the flag equals instead (tests/fixtures/ONX531/config_flags.py, PatchMask): the same
values in the same dtype for masks of every dtype, in eager; and the legacy export that failed in
TorchScript's alias analysis ("We don't have an op for aten::full") now matches PyTorch."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
import torch

from fixture_exports import load

FIXTURE = Path(__file__).parent / "fixtures" / "ONX531" / "config_flags"
ORIGINAL, FIXED = load(FIXTURE.with_suffix(".py")), load(FIXTURE.with_suffix(".fixed.py"))


def _inputs(dtype):
    mask = torch.ones(2, 5, dtype=torch.long).to(dtype)
    return mask, torch.rand(2, 3, 4)


@pytest.mark.parametrize("dtype", [torch.long, torch.int32, torch.bool, torch.float32])
def test_the_int_fill_is_the_same_tensor(dtype):
    before, after = ORIGINAL.PatchMask()(*_inputs(dtype)), FIXED.PatchMask()(*_inputs(dtype))
    for old, new in zip(before, after):
        assert old.dtype == new.dtype and torch.equal(old, new)


def test_the_legacy_export_takes_the_int_fill():
    import onnxruntime

    model, inputs = FIXED.PatchMask().eval(), _inputs(torch.long)
    with pytest.raises(RuntimeError, match="aten::full"):
        torch.onnx.export(ORIGINAL.PatchMask().eval(), inputs, io.BytesIO(), dynamo=False)
    buffer = io.BytesIO()
    torch.onnx.export(model, inputs, buffer, dynamo=False, input_names=["mask", "patches"],
                      dynamic_axes={"mask": {0: "b", 1: "n"}, "patches": {0: "b", 1: "p"}})
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    mask, patches = torch.ones(3, 7, dtype=torch.long), torch.rand(3, 2, 4)  # other sizes than exported
    got = session.run(None, {"mask": mask.numpy(), "patches": patches.numpy()})
    for expected, value in zip(model(mask, patches), got):
        assert torch.equal(expected, torch.from_numpy(value))
