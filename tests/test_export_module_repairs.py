"""Export-time repairs of how a model is held rather than of an operator: module methods the
exporters call themselves (tests/export_models/). Each model fails before and exports OK with the
named repair, matching eager in onnxruntime on other inputs; the source is not edited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from export_cli import export_fixed

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_a_custom_state_dict_gets_nn_modules_own_while_the_legacy_exporter_traces(capsys):
    """A sub-network whose class overrides state_dict behind a `*args, **kwargs` decorator: the
    legacy exporter's parameter collection fails on it; the run names state_dict_standard, and the
    export with nn.Module's own state_dict on that instance matches PyTorch on other batches."""
    target = export_fixed(capsys, "custom_state_dict.py", "--exporter", "legacy")
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "state_dict() got an unexpected keyword argument 'destination'" in target["results"][0]["error"]
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"], [r["verdict"] for r in fix["results"]]) == (
        ["state_dict_standard"], "", ["OK"])


def test_size_buffers_are_read_as_the_ints_they_hold_while_torch_export_traces(capsys):
    """Sizes registered as 0-d integer buffers (DDSP-SVC's vocoder): torch.export lifts them into
    graph inputs, so `torch.arange(self.block_size)` reads a value out of the data; the run names
    int_buffers_as_numbers, and the export that reads each buffer as its int matches PyTorch."""
    target = export_fixed(capsys, "size_buffers.py", "--exporter", "dynamo")
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert "data-dependent expression" in json.dumps(target["results"][0])
    fix = target["fix"]
    assert (fix["decompositions"], fix["diff"], [r["verdict"] for r in fix["results"]]) == (
        ["int_buffers_as_numbers"], "", ["OK"])


def test_the_buffers_read_as_ints_are_the_modules_own_again_afterwards():
    import torch

    from onnxfix.exporter.number_buffers import int_buffers_as_numbers, size_buffers
    from onnxfix.exporter.targets import load_module

    model = load_module(Path(__file__).parent / "export_models" / "size_buffers.py").make_model()
    model.scripted = torch.jit.script(torch.nn.BatchNorm1d(1))  # its buffers are its compiled code's
    model.register_buffer("hidden", torch.tensor(5))
    vars(model)["hidden"] = "an instance attribute of the buffer's name"  # what forward would read
    before = list(model.state_dict(keep_vars=True).items())
    assert size_buffers(model) == ["CombSource.sampling_rate", "CombSource.block_size", "CombSource.win_length"]
    with pytest.raises(RuntimeError), int_buffers_as_numbers(model) as used:
        assert (type(model.block_size).__mro__[1], model.block_size, model.block_size.dtype) == (int, 8, torch.int64)
        assert model.block_size * torch.tensor(2).item() == 16 and isinstance(model.bn.num_batches_tracked, torch.Tensor)
        model.block_size = 3  # a forward that assigns the name: gone afterwards too
        raise RuntimeError("the export failed")
    assert used == {"int_buffers_as_numbers": 3}
    after = list(model.state_dict(keep_vars=True).items())
    assert [k for k, _ in after] == [k for k, _ in before] and all(a is b for (_, a), (_, b) in zip(after, before))
    assert isinstance(model.block_size, torch.Tensor) and "block_size" not in vars(model)
    assert vars(model)["hidden"] == "an instance attribute of the buffer's name"
