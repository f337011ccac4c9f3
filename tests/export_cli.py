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
