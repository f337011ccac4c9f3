"""Helpers the `onnxfix export` end-to-end tests share (tests/test_export_cmd*.py)."""

from __future__ import annotations

import json
from pathlib import Path

from onnxfix.cli import main as cli_main

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "tests" / "export_models"


def cli_json(argv: list[str], capsys) -> tuple[int, dict]:
    """`onnxfix export --format json ARGV`: the exit code and the JSON document."""
    code = cli_main(["export", "--format", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def export_fixed(capsys, model: str, *options: str) -> dict:
    """`onnxfix export MODEL:make_model --inputs ... --probe-inputs ... OPTIONS --fix` on a model
    of tests/export_models: the JSON target (its `results` before, its `fix`)."""
    spec = MODELS / model
    code, document = cli_json([f"{spec}:make_model", "--inputs", f"{spec}:example_inputs",
                               "--probe-inputs", f"{spec}:probe_inputs", *options, "--fix"], capsys)
    (target,) = document["targets"]
    return target


def written_and_proven(tmp_path: Path, capsys, model: str, before: list[str], *extra: str) -> str:
    """`onnxfix export COPY:make_model --exporter both --write [*extra]` on a copy of a model of
    tests/export_models: the verdicts before are ``before``, every exporter is OK after on the
    user's second probe too, and the written copy is bit-identical to the model in eager on the
    example and the probes. Returns the written source."""
    import shutil

    import torch

    from onnxfix.exporter.targets import load_module

    copy = tmp_path / model
    shutil.copy(MODELS / model, copy)
    code, document = cli_json([f"{copy}:make_model", "--exporter", "both", "--write", *extra], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == before
    for after in target["fix"]["results"]:
        assert after["verdict"] == "OK", after
        assert any(p["probe"] == "probe 2 (user)" and p["ok"] for p in after["probes"]), after["probes"]
    assert code == 0
    original, fixed = load_module(MODELS / model), load_module(copy)
    for args in [original.example_inputs(), *original.probe_inputs()]:
        with torch.no_grad():
            assert torch.equal(original.make_model()(*args), fixed.make_model()(*args))
    return copy.read_text()
