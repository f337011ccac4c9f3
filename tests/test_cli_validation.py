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


# The summary names the exporters checked for and, after fixes, what is left by kind.
MIXED = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor, y):
            a = x.data
            b = y.data
            return a + b, x.tolist()
    """
)
SAFE_301 = (
    "mixed.py:7:13: ONX301 [*] `.data` in export-time code: the legacy exporter bakes it in as a constant and "
    "the dynamo exporter can crash; use `.detach()`\n"
)
UNSAFE_301 = SAFE_301.replace("mixed.py:7:", "mixed.py:8:").replace(" [*]", "")
NO_FIX_202 = (
    "mixed.py:9:23: ONX202 `.tolist()` turns a tensor into Python numbers: the legacy exporter records them "
    "as constants\n"
)
LEFT = "Remaining: 1 with an unsafe fix (use `--unsafe-fixes`), 1 with no fix.\n"


@pytest.fixture
def mixed(folder):
    """One finding with a safe fix, one with an unsafe fix, one (legacy only) with none."""
    path = folder / "mixed.py"
    path.write_text(MIXED)
    return path


def test_check_summary_names_the_exporters(mixed, capsys):
    assert run(["mixed.py"], capsys) == (
        1,
        SAFE_301 + UNSAFE_301 + "Found 2 findings (exporters: dynamo).\n[*] 1 fixable with `--write` (1 more with `--unsafe-fixes`).\n",
        "",
    )
    assert run(["mixed.py", "--exporters", "both"], capsys) == (
        1,
        SAFE_301 + UNSAFE_301 + NO_FIX_202
        + "Found 3 findings (exporters: dynamo, legacy).\n[*] 1 fixable with `--write` (1 more with `--unsafe-fixes`).\n",
        "",
    )
    assert run(["model.py", "--select", "ONX5"], capsys) == (0, "All checks passed! (exporters: dynamo)\n", "")


def test_diff_summary_says_what_is_left(mixed, capsys):
    code, out, err = run(["mixed.py", "--diff", "--exporters", "both"], capsys)
    assert (code, err) == (1, "Would fix 1 finding in 1 file, 2 remaining (exporters: dynamo, legacy).\n" + LEFT)
    assert out.count("\n-") == 1 and "\n+        a = x.detach()\n" in out


def test_diff_without_a_safe_fix_does_not_just_say_would_fix_0(mixed, capsys):
    """Exit 0 as documented (--diff: 1 means changes), but the findings left are named."""
    args = ["mixed.py", "--diff", "--exporters", "both", "--ignore", "ONX301"]
    assert run(args, capsys) == (0, "", "Would fix 0 findings, 1 remaining (exporters: dynamo, legacy).\nRemaining: 1 with no fix.\n")
    args = ["mixed.py", "--diff", "--select", "ONX301", "--unsafe-fixes"]
    code, out, err = run(args, capsys)
    assert (code, err) == (1, "Would fix 2 findings in 1 file, 0 remaining (exporters: dynamo).\n")


def test_write_summary_counts_fixed_and_remaining_by_kind(mixed, capsys):
    code, out, err = run(["mixed.py", "--write", "--exporters", "both"], capsys)
    assert (code, err) == (1, "")
    assert out.splitlines(keepends=True)[-2:] == ["Fixed 1 finding in 1 file, 2 remaining (exporters: dynamo, legacy).\n", LEFT]
    assert mixed.read_text() == MIXED.replace("x.data", "x.detach()")
    code, out, err = run(["mixed.py", "--write", "--exporters", "both", "--unsafe-fixes"], capsys)
    assert out.splitlines(keepends=True)[-2:] == [
        "Fixed 1 finding in 1 file, 1 remaining (exporters: dynamo, legacy).\n",
        "Remaining: 1 with no fix.\n",
    ]
    code, out, err = run(["mixed.py", "--write", "--exporters", "dynamo"], capsys)
    assert (code, out, err) == (0, "All checks passed! (exporters: dynamo)\n", "")


def test_never_all_checks_passed_when_nothing_was_checked(folder, capsys):
    (folder / "data").mkdir()
    assert run(["data"], capsys) == (0, "No Python files checked (exporters: dynamo).\n", "warning: no Python files found\n")
    assert run(["model.py", "nope.py", "--select", "ONX5"], capsys) == (
        2,
        "No findings in the files checked (exporters: dynamo).\n1 path(s) could not be checked: see the errors above.\n",
        "nope.py:1:1: error: no such file or directory\n",
    )


@pytest.mark.parametrize(
    "args, config, message",
    [
        (["--select", "ONX202"], "", "exporter dynamo (select: ONX202; ignore: none)"),
        (["--select", "onx7"], "", "exporter dynamo (select: ONX7; ignore: none)"),
        (["--select", "ONX2", "--ignore", "onx2"], "", "exporter dynamo (select: ONX2; ignore: ONX2)"),
        (["--ignore", "ONX"], 'exporters = "both"', "exporters dynamo, legacy (select: ONX; ignore: ONX)"),
        ([], 'select = ["ONX401", "ONX303"]', "exporter dynamo (select: ONX401, ONX303; ignore: none)"),
        (["--exporters", "dynamo"], 'exporters = "legacy"\nselect = ["ONX401"]', "exporter dynamo (select: ONX401; ignore: none)"),
    ],
)
def test_a_selection_that_leaves_no_rule_for_the_exporters_is_an_error(folder, capsys, args, config, message):
    """ONX202, ONX303, ONX401 and ONX7xx break only the legacy exporter: selected for dynamo
    alone, nothing would be checked."""
    if config:
        (folder / "pyproject.toml").write_text(f"[tool.onnxfix]\n{config}\n")
    expected = (2, "", f"error: nothing to check: no selected rule reports for {message}\n")
    assert run(["model.py", *args], capsys) == expected
    assert run(["model.py", "--diff", *args], capsys) == expected


def test_a_legacy_only_selection_is_fine_when_legacy_is_targeted(folder, capsys):
    assert run(["model.py", "--select", "ONX2", "--exporters", "legacy", "-q"], capsys) == (1, LINE_201, "")
