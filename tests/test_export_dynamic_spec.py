"""The DYNAMIC literal of a model file (issue #12 item 5): both forms are read, anything else
is an error at its file:line (exit 2), never a silent static export. No torch, no exports."""

from __future__ import annotations

from pathlib import Path

import pytest

from onnxfix.cli import main as cli_main
from onnxfix.exporter import plan

MODEL = '''import torch
from torch import nn


class M(nn.Module):
    def forward(self, x, mask):
        return x * mask


def example_inputs():
    return (torch.ones(2, 3, 4, 5), torch.ones(2, 3))


{spec}
'''


def _target(tmp_path: Path, spec: str, **kwargs) -> plan.Target:
    (tmp_path / "m.py").write_text(MODEL.format(spec=spec))
    return plan.make_target(f"{tmp_path / 'm.py'}:M", **kwargs)


@pytest.mark.parametrize("spec, dynamic", [
    ("DYNAMIC = {0: [0, 2, 3]}", {"0": {0: "input0_dim0", 2: "input0_dim2", 3: "input0_dim3"}}),
    ('DYNAMIC = {"x": [0, 2], "mask": (0,)}', {"x": {0: "x_dim0", 2: "x_dim2"}, "mask": {0: "mask_dim0"}}),
    ('DYNAMIC = {"x": {0: "batch"}, 1: {0: "batch", 1: "seq"}}', {"x": {0: "batch"}, "1": {0: "batch", 1: "seq"}}),
    ('DYNAMIC = {"x": [-1]}', {"x": {-1: "x_dimm1"}}),
    ('DYNAMIC: dict = {"x": [1]}', {"x": {1: "x_dim1"}}),
    ("DYNAMIC = {}", {}),
])
def test_both_forms_of_the_dynamic_literal_are_read(tmp_path, spec, dynamic):
    assert _target(tmp_path, spec).dynamic == dynamic


@pytest.mark.parametrize("spec, message", [
    ('DYNAMIC = [0, 2]', "DYNAMIC must be a dict {input: {dim: \"name\", ...}} or {input: [dim, ...]}, got list [0, 2]"),
    ('DYNAMIC = {"x": 0}', "DYNAMIC: input 'x': expected a list of dims or a dict {dim: \"name\"}, got 0"),
    ('DYNAMIC = {"x": [0, "1"]}', "DYNAMIC: input 'x': dim '1' is not an integer"),
    ('DYNAMIC = {"x": {0: 1}}', "DYNAMIC: input 'x' dim 0: the name must be an identifier string, got 1"),
    ('DYNAMIC = {"x": {"a": "batch"}}', "DYNAMIC: input 'x': dim 'a' is not an integer"),
    ('DYNAMIC = {-1: [0]}', "DYNAMIC: input -1 must be forward's parameter name or an input index >= 0"),
    ('DYNAMIC = {"x-y": [0]}', "DYNAMIC: input 'x-y' must be forward's parameter name or an input index >= 0"),
    ('DYNAMIC = {"x": [True]}', "DYNAMIC: input 'x': dim True is not an integer"),
    ('DYNAMIC = dict(x=[0])', "DYNAMIC must be a literal {input: {dim: \"name\", ...}} or {input: [dim, ...]}, got `dict(x=[0])`"),
])
def test_any_other_dynamic_literal_is_an_error_at_its_line(tmp_path, spec, message):
    with pytest.raises(plan.PlanError) as caught:
        _target(tmp_path, spec)
    assert str(caught.value) == f"{tmp_path / 'm.py'}:14: {message}"


def test_a_bad_dynamic_literal_exits_2_naming_the_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "m.py").write_text(MODEL.format(spec='DYNAMIC = {"x": 0}'))
    monkeypatch.chdir(tmp_path)
    assert cli_main(["export", "m.py:M"]) == 2
    assert capsys.readouterr().err == (
        "error: m.py:14: DYNAMIC: input 'x': expected a list of dims or a dict {dim: \"name\"}, got 0\n"
    )


def test_a_dynamic_option_replaces_a_bad_literal_without_reading_it(tmp_path):
    target = _target(tmp_path, 'DYNAMIC = {"x": 0}', dynamic={"x": {1: "seq"}})
    assert target.dynamic == {"x": {1: "seq"}}
