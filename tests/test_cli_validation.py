"""Values that match nothing are errors (exit 2, naming the value), never a silent "All checks
passed!": rule codes and prefixes, exporter names, config keys, and a pyproject.toml that does
not parse. Codes are case-insensitive; `both` means every exporter, as in `onnxfix export`."""

import textwrap
from pathlib import Path

import pytest

from onnxfix.cli import main

# One finding for each exporter set: ONX201 (legacy only) and ONX301 (both).
MODEL = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor, n: torch.Tensor):
            return x.reshape(n.item(), -1), x.data
    """
)
LINE_201 = (
    "model.py:7:26: ONX201 [*] `.item()` used as a size: the legacy exporter bakes the value in as a "
    "constant; pass the tensor\n"
)
LINE_301 = (
    "model.py:7:41: ONX301 [*] `.data` in export-time code: the legacy exporter bakes it in as a "
    "constant and the dynamo exporter can crash; use `.detach()`\n"
)
RULES_HINT = "no rule or family matches (`onnxfix rules` lists them)"
EXPORTERS_HINT = "expected dynamo, legacy or both"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A model in the cwd, no config: the default target is dynamo only."""
    (tmp_path / "model.py").write_text(MODEL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args, capsys):
    code = main([str(a) for a in args] + ["--no-cache"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--select", "ONX999"], f"invalid value 'ONX999' for --select: {RULES_HINT}"),
        (["--select", "FOO"], f"invalid value 'FOO' for --select: {RULES_HINT}"),
        (["--select", "ONX2,onx99"], f"invalid value 'onx99' for --select: {RULES_HINT}"),
        (["--select", "ONX2O1"], f"invalid value 'ONX2O1' for --select: {RULES_HINT}"),
        (["--select", "O"], f"invalid value 'O' for --select: {RULES_HINT}"),
        (["--select", ""], "invalid value '' for --select: expected rule codes or prefixes"),
        (["--select", " , "], "invalid value '' for --select: expected rule codes or prefixes"),
        (["--ignore", "ONX8"], f"invalid value 'ONX8' for --ignore: {RULES_HINT}"),
        (
            ["--select", "ONX901"],
            "invalid value 'ONX901' for --select: an export-time code (reported by `onnxfix export`), not a static rule",
        ),
        (["--exporters", "onnx"], f"invalid value 'onnx' for --exporters: {EXPORTERS_HINT}"),
        (["--exporters", "dynamo,torchscript"], f"invalid value 'torchscript' for --exporters: {EXPORTERS_HINT}"),
        (["--exporters", ""], f"invalid value '' for --exporters: {EXPORTERS_HINT}"),
    ],
)
def test_a_command_line_value_that_matches_nothing_is_an_error(folder, capsys, args, message):
    for mode in ([], ["--diff"], ["--write"]):
        assert run(["model.py", *args, *mode], capsys) == (2, "", f"error: {message}\n")
    assert (folder / "model.py").read_text() == MODEL


def test_codes_are_case_insensitive(folder, capsys):
    both = ["--exporters", "dynamo,legacy", "-q"]
    assert run(["model.py", "--select", "onx201", *both], capsys) == (1, LINE_201, "")
    assert run(["model.py", "--select", " Onx2 ", *both], capsys) == (1, LINE_201, "")
    assert run(["model.py", "--ignore", "onx2", *both], capsys) == (1, LINE_301, "")
    assert run(["model.py", "--select", "all", *both], capsys) == (1, LINE_201 + LINE_301, "")


@pytest.mark.parametrize("spelling", ["both", "BOTH", "dynamo,legacy", "Legacy,dynamo", "both,legacy"])
def test_both_means_every_exporter(folder, capsys, spelling):
    assert run(["model.py", "--exporters", spelling, "-q"], capsys) == (1, LINE_201 + LINE_301, "")


def test_exporter_names_are_case_insensitive(folder, capsys):
    assert run(["model.py", "--exporters", "DYNAMO", "-q"], capsys) == (1, LINE_301, "")


def config_error(folder: Path, text: str, capsys) -> tuple[int, str, str]:
    (folder / "pyproject.toml").write_text(text)
    return run(["model.py"], capsys)


def pyproject(folder: Path, position: str = "") -> str:
    return f"error: {folder.resolve() / 'pyproject.toml'}{position}: "


@pytest.mark.parametrize(
    "table, message",
    [
        ('select = ["ONX999"]', f"invalid value 'ONX999' for select: {RULES_HINT}"),
        ('select = "FOO"', f"invalid value 'FOO' for select: {RULES_HINT}"),
        ('ignore = ["ONX2", "onx2x"]', f"invalid value 'onx2x' for ignore: {RULES_HINT}"),
        ('per-file-ignores = { "tests/*" = ["X1"] }', f"invalid value 'X1' for per-file-ignores 'tests/*': {RULES_HINT}"),
        ('exporters = ["onnx"]', f"invalid value 'onnx' for exporters: {EXPORTERS_HINT}"),
        (
            'selct = ["ONX2"]\nexporter = "dynamo"',
            "unknown key(s) in [tool.onnxfix]: exporter, selct (allowed: cache-dir, exclude, export, exporters, "
            "ignore, per-file-ignores, select, unsafe-fixes)",
        ),
    ],
)
def test_a_config_value_or_key_that_matches_nothing_is_an_error(folder, capsys, table, message):
    code, out, err = config_error(folder, f"[tool.onnxfix]\n{table}\n", capsys)
    assert (code, out, err) == (2, "", pyproject(folder) + message + "\n")


def test_config_codes_and_exporters_are_case_insensitive(folder, capsys):
    (folder / "pyproject.toml").write_text('[tool.onnxfix]\nselect = ["onx2", "Onx3"]\nignore = ["onx301"]\nexporters = ["Both"]\n')
    assert run(["model.py", "-q"], capsys) == (1, LINE_201, "")
    (folder / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = "both"\nper-file-ignores = { "model.py" = ["onx2"] }\n')
    assert run(["model.py", "-q"], capsys) == (1, LINE_301, "")


@pytest.mark.parametrize(
    "text, position, message",
    [
        ('[tool.onnxfix]\nselect = ["ONX2"\n', ":2:17", "invalid TOML: Unclosed array"),
        ('[tool.onnxfix]\nselect = ["ONX2"', ":2:17", "invalid TOML: Unclosed array"),
        ('[tool.onnxfix]\nselect = "ONX2\n', ":2:15", "invalid TOML: Illegal character '\\n'"),
        ("[project]\nname = x\n", ":2:8", "invalid TOML: Invalid value"),
        ("[tool]\nonnxfix = 1\n", "", "tool.onnxfix must be a table ([tool.onnxfix])"),
    ],
)
def test_a_pyproject_that_does_not_parse_is_an_error(folder, capsys, text, position, message):
    code, out, err = config_error(folder, text, capsys)
    assert (code, out, err) == (2, "", pyproject(folder, position) + message + "\n")


def test_an_undecodable_pyproject_is_an_error(folder, capsys):
    (folder / "pyproject.toml").write_bytes(b"\xff[tool.onnxfix]\n")
    assert run(["model.py"], capsys) == (2, "", pyproject(folder) + "cannot decode as utf-8: invalid start byte\n")


def test_a_broken_pyproject_does_not_fall_back_to_the_parent_config(folder, capsys):
    """Skipping it would silently use the parent's settings (here: legacy too, so 2 findings)."""
    (folder / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    sub = folder / "sub"
    sub.mkdir()
    (sub / "model.py").write_text(MODEL)
    (sub / "pyproject.toml").write_text("[project\n")
    code, out, err = run(["sub/model.py"], capsys)
    assert (code, out, err) == (2, "", pyproject(sub, ":1:9") + "invalid TOML: Expected ']' at the end of a table declaration\n")


def test_a_pyproject_without_onnxfix_table_is_still_skipped(folder, capsys):
    (folder / "pyproject.toml").write_text('[project]\nname = "m"\n')
    assert run(["model.py", "-q"], capsys) == (1, LINE_301, "")
