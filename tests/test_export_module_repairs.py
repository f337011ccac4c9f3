"""Export-time repairs of how a model is held rather than of an operator: module methods the
exporters call themselves (tests/export_models/). Each model fails before and exports OK with the
named repair, matching eager in onnxruntime on other inputs; the source is not edited."""

from __future__ import annotations

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
