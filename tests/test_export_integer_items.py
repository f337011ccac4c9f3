"""`int()` of an integer tensor read as `.item()` (patterns/scalars/integer_items.py): the same int
in eager, and a value torch.export keeps symbolic where `int()` of a value from the data stops its
non-strict capture (torch.onnx's first strategy). The fixture pair is tests/fixtures/ONX203/
integer_items.py; here the run-backed rewrite of FastPitch's mel mask, end to end."""

from __future__ import annotations

import pytest

from export_cli import MODELS, written_and_proven

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_the_mel_length_stays_a_graph_value_for_both_exporters(tmp_path, capsys):
    """`max_len = int(lens.max().item())`: the legacy export baked the example's length (onnxruntime
    fails on longer mels); `onnxfix export --write` keeps the tensor while tracing and reads
    `.item()` (the run saw int64 lengths) elsewhere: both exports match PyTorch on other batches
    and token counts, and eager is bit-identical (written_and_proven)."""
    written = written_and_proven(tmp_path, capsys, "length_regulated_mask.py", ["OK", "ORT-FAILS"])
    assert "    max_len = (lens.max().long() if torch.jit.is_tracing() else lens.max().item())\n" in written


@pytest.mark.parametrize("rewritten, fails", [(False, True), (True, False)])
def test_non_strict_capture_fails_on_int_and_passes_on_item(tmp_path, rewritten, fails):
    """The premise, measured on the installed torch: non-strict torch.export of the mask with a
    dynamic batch stops on `int()` ("Could not extract specialized integer"), not on `.item()`."""
    import torch

    from onnxfix.exporter.targets import load_module

    source = (MODELS / "length_regulated_mask.py").read_text()
    if rewritten:
        source = source.replace("int(lens.max().item())", "lens.max().item()")
    copy = tmp_path / "mask_model.py"
    copy.write_text(source)
    module = load_module(copy)
    model, args = module.make_model(), module.example_inputs()
    batch, tokens = torch.export.Dim("batch"), torch.export.Dim("tokens")
    shapes = ({0: batch, 1: tokens}, {0: batch, 1: tokens})
    try:
        torch.export.export(model, args, dynamic_shapes=shapes, strict=False)
    except Exception as error:  # noqa: BLE001 - the failure is the measurement
        assert fails and "Could not extract specialized integer" in str(error), str(error)[:300]
    else:
        assert not fails


def test_a_tensor_bound_beside_a_number_bound_clamps_one_bound_at_a_time(tmp_path, capsys):
    """torchlibrosa's decibel floor: the legacy export baked the example's peak (silently wrong on
    other inputs); `.item()` dropped and the clamp split (patterns/scalars/clamp_bounds.py), both
    exports match PyTorch on other peaks and sizes, and eager is bit-identical here (the fix is
    unsafe: a `top_db` float32 cannot hold would round differently in the tensor's arithmetic)."""
    written = written_and_proven(tmp_path, capsys, "decibel_floor.py", ["OK", "SILENTLY-WRONG"], "--unsafe-fixes")
    assert "torch.clamp(log_spec, min=log_spec.max() - self.top_db).clamp(max=np.inf)" in written
