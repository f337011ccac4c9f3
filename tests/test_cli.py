"""The command line as users meet it: reports, exit codes, --diff/--write, noqa, config, formats."""

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from onnxfix.cli import main
from onnxfix.patterns import all_rules

HAZARD = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor, n: torch.Tensor):
            s = x.size(1)
            s += 1  # grow
            y = x.reshape(n.item(), -1)
            return y * s, x.data
    """
)
FIXED = HAZARD.replace("s += 1", "s = s + 1").replace("n.item()", "n").replace("x.data", "x.detach()")
CLEAN = "import torch\n\n\ndef f(x):\n    return x + 1\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with a pyproject targeting both exporters, as the cwd."""
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder: Path, name: str, text: str, newline: str = "\n") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def run(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_report_lines_summary_and_exit_code(project, capsys):
    write(project, "model.py", HAZARD)
    code, out, err = run(["model.py"], capsys)
    assert code == 1
    assert out == (
        "model.py:8:9: ONX401 [*] in-place `+=` on `s`, a value taken from a tensor shape: the legacy "
        "exporter mutates the traced size and exports a wrong model\n"
        "model.py:9:23: ONX201 [*] `.item()` used as a size: the legacy exporter bakes the value in as "
        "a constant; pass the tensor\n"
        "model.py:10:23: ONX301 [*] `.data` in export-time code: the legacy exporter bakes it in as a "
        "constant and the dynamo exporter can crash; use `.detach()`\n"
        "Found 3 findings (exporters: dynamo, legacy).\n[*] 3 fixable with `--write`.\n"
    )
    assert err == ""


def test_clean_file_exits_zero(project, capsys):
    write(project, "clean.py", CLEAN)
    assert run(["clean.py"], capsys) == (0, "All checks passed! (exporters: dynamo, legacy)\n", "")


def test_default_target_is_dynamo_only(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no config: exporters = ["dynamo"]
    write(tmp_path, "model.py", HAZARD)
    code, out, _ = run(["model.py", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX301"]  # legacy-only ones hidden
    code, out, _ = run(["model.py", "--exporters", "dynamo,legacy", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX401", "ONX201", "ONX301"]


EXPORT_SCRIPT = "import torch\nfrom model import M\n\ntorch.onnx.export(M(), (torch.ones(2, 3),), 'm.onnx'{flag})\n"


@pytest.mark.parametrize("flag, summary", [
    (", dynamo=False", "Found 3 findings (exporters: legacy; as the export call at export.py:4 uses)."),
    (", dynamo=use_dynamo", "Found 3 findings (exporters: dynamo, legacy; as the export call at export.py:4 uses)."),
    ("", "Found 1 finding (exporters: dynamo)."),  # torch 2.13's default: the plain default
])
def test_exporters_inferred_from_the_export_call_beside_the_model(tmp_path, monkeypatch, capsys, flag, summary):
    monkeypatch.chdir(tmp_path)  # no config, no --exporters: the export script decides
    write(tmp_path, "model.py", HAZARD)
    write(tmp_path, "export.py", EXPORT_SCRIPT.format(flag=flag))
    code, out, _ = run(["model.py", "--no-cache"], capsys)
    assert code == 1 and out.splitlines()[-2 if "[*]" in out else -1] == summary


@pytest.mark.parametrize(("folders", "version"), [
    (["torch-2.5.1.dist-info"], (2, 5)),
    (["torch-2.13.0+cpu.dist-info"], (2, 13)),
    (["torch-1.13.1-py3.11.egg-info"], (1, 13)),
    (["torchvision-0.20.0.dist-info", "torch_tensorrt-2.5.0.dist-info"], None),
])
def test_installed_torch_version_is_read_from_the_metadata_folder_name(tmp_path, monkeypatch, folders, version):
    """The version the exporter default depends on, without importing torch or importlib.metadata."""
    from onnxfix.rewriter import exporter_inference

    for folder in folders:
        (tmp_path / folder).mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path)])
    exporter_inference.installed_torch_version.cache_clear()
    try:
        assert exporter_inference.installed_torch_version() == version
    finally:
        exporter_inference.installed_torch_version.cache_clear()


def test_exporters_inferred_from_an_old_torch_default(tmp_path, monkeypatch, capsys):
    from onnxfix.rewriter import exporter_inference

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(exporter_inference, "installed_torch_version", lambda: (2, 5))
    write(tmp_path, "model.py", HAZARD)
    code, out, _ = run(["model.py", "--no-cache"], capsys)
    assert "Found 3 findings (exporters: legacy; the default of torch.onnx.export in torch 2.5)." in out
    write(tmp_path, "export.py", EXPORT_SCRIPT.format(flag=""))  # no dynamo=: torch 2.5's default again
    code, out, _ = run(["model.py", "--no-cache"], capsys)
    assert "Found 3 findings (exporters: legacy; as the export call at export.py:4 uses)." in out
    code, out, _ = run(["model.py", "--no-cache", "--exporters", "dynamo"], capsys)  # said: not inferred
    assert "Found 1 finding (exporters: dynamo)." in out


def test_diff_writes_nothing_and_exits_one(project, capsys):
    path = write(project, "model.py", HAZARD)
    code, out, err = run(["model.py", "--diff"], capsys)
    assert code == 1
    assert path.read_text() == HAZARD
    assert out.startswith("--- a/model.py\n+++ b/model.py\n")
    assert "\n-        s += 1  # grow\n" in out and "\n+        s = s + 1  # grow\n" in out
    assert err == "Would fix 3 findings in 1 file, 0 remaining (exporters: dynamo, legacy).\n"


HAZARD_DIFF = (
    "@@ -5,6 +5,6 @@\n"
    " class M(nn.Module):\n"
    "     def forward(self, x: torch.Tensor, n: torch.Tensor):\n"
    "         s = x.size(1)\n"
    "-        s += 1  # grow\n"
    "-        y = x.reshape(n.item(), -1)\n"
    "-        return y * s, x.data\n"
    "+        s = s + 1  # grow\n"
    "+        y = x.reshape(n, -1)\n"
    "+        return y * s, x.detach()\n"
)


def test_diff_of_a_file_named_by_absolute_path(project, capsys, tmp_path_factory):
    # a path outside the working directory is shown absolute: a/abs/path, as git diff --no-index
    path = write(tmp_path_factory.mktemp("elsewhere"), "model.py", HAZARD)
    code, out, _ = run([path, "--diff", "--exporters", "dynamo,legacy", "-q"], capsys)
    name = str(path).lstrip("/")
    assert (code, out) == (1, f"--- a/{name}\n+++ b/{name}\n" + HAZARD_DIFF)


def test_diff_as_json_is_one_json_document(project, capsys):
    write(project, "model.py", HAZARD)
    code, out, err = run(["model.py", "--diff", "--format", "json"], capsys)
    assert (code, err) == (1, "")
    assert json.loads(out) == {
        "findings": [],
        "diffs": [{"filename": "model.py", "diff": "--- a/model.py\n+++ b/model.py\n" + HAZARD_DIFF}],
    }
    assert run(["model.py", "--diff", "--format", "sarif"], capsys) == (
        2, "", "error: --diff cannot be combined with --format sarif\n"
    )


def test_write_applies_and_second_write_is_a_no_op(project, capsys):
    path = write(project, "model.py", HAZARD)
    code, out, _ = run(["model.py", "--write"], capsys)
    assert code == 1  # files changed
    assert path.read_text() == FIXED
    assert out == "Fixed 3 findings in 1 file, 0 remaining (exporters: dynamo, legacy).\n"
    assert run(["model.py", "--fix"], capsys) == (0, "All checks passed! (exporters: dynamo, legacy)\n", "")
    assert path.read_text() == FIXED


def test_unsafe_fixes_only_on_request(project, capsys):
    # z.data on an unknown type (an input whose size is never read): unsafe
    text = HAZARD.replace("n: torch.Tensor)", "n: torch.Tensor, z)").replace("x.data", "z.data")
    path = write(project, "model.py", text)
    code, out, _ = run(["model.py", "--write"], capsys)
    assert "z.data" in path.read_text()
    assert out == (  # the re-check after a fix round does not say "reached from M.forward" in M.forward
        "model.py:10:23: ONX301 `.data` in export-time code: the legacy exporter bakes it in as a constant "
        "and the dynamo exporter can crash; use `.detach()`\n"
        "Fixed 2 findings in 1 file, 1 remaining (exporters: dynamo, legacy).\n"
        "Remaining: 1 with an unsafe fix (use `--unsafe-fixes`).\n"
    )
    run(["model.py", "--write", "--unsafe-fixes"], capsys)
    assert "z.detach()" in path.read_text()


def test_an_exported_input_whose_size_is_read_is_a_tensor(project, capsys):
    """`x.size(1)` in forward: of what an exporter passes (tensors, lists, tuples, dicts of them)
    only a tensor has a size, so `x.data` -> `x.detach()` is safe without an annotation."""
    path = write(project, "model.py", HAZARD.replace("x: torch.Tensor", "x"))
    run(["model.py", "--write"], capsys)
    assert path.read_text() == FIXED.replace("x: torch.Tensor", "x")


def test_a_warm_cache_with_another_selection_reports_the_same_lines(project, capsys):
    """The second run reuses the cached reach and checks again for the new selection; a forward
    must still be its own entry (its findings do not say "reached from" itself)."""
    write(project, "model.py", HAZARD)
    _, cold, _ = run(["model.py", "--select", "ONX201", "-q", "--no-cache"], capsys)
    run(["model.py", "--select", "ONX2", "-q"], capsys)  # fills the cache
    assert run(["model.py", "--select", "ONX201", "-q"], capsys) == (1, cold, "")
    assert cold == (
        "model.py:9:23: ONX201 [*] `.item()` used as a size: the legacy exporter bakes the value in as "
        "a constant; pass the tensor\n"
    )


def test_select_and_ignore_take_prefixes(project, capsys):
    write(project, "model.py", HAZARD)
    _, out, _ = run(["model.py", "--select", "ONX2,ONX3", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX201", "ONX301"]
    _, out, _ = run(["model.py", "--ignore", "ONX301", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX401", "ONX201"]


def test_noqa_specific_and_bare(project, capsys):
    text = HAZARD.replace("# grow", "# noqa: ONX401").replace("n.item(), -1)", "n.item(), -1)  # noqa")
    text = text.replace("x.data\n", "x.data  # noqa: ONX2\n")  # another code: still reported
    write(project, "model.py", text)
    _, out, _ = run(["model.py", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX301"]


NUMPY_ROUND_TRIP = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor):
            a = x.numpy(){noqa}
            return torch.from_numpy(a)
    """
)


def test_a_noqa_line_is_not_edited_by_another_findings_grouped_fix(project, capsys):
    # The ONX103 fix converts the whole NumPy region, `.numpy()` included: with ONX102
    # silenced on its line, the region fix is not offered (it cannot be narrowed).
    text = NUMPY_ROUND_TRIP.format(noqa="  # noqa: ONX102")
    write(project, "model.py", text)
    assert run(["model.py", "--no-cache", "--write", "-q"], capsys) == (1, (
        "model.py:8:16: ONX103 `torch.from_numpy` of a NumPy array: the legacy exporter registers it as a "
        "constant\n"
    ), "")
    assert (project / "model.py").read_text() == text
    assert run(["model.py", "--no-cache", "--diff", "-q"], capsys) == (0, "", "")
    # without the noqa the region is fixed as one group
    write(project, "model.py", NUMPY_ROUND_TRIP.format(noqa=""))
    assert run(["model.py", "--no-cache", "--write", "-q"], capsys)[1] == ""
    assert (project / "model.py").read_text().endswith("        a = x\n        return a\n")


def test_file_level_noqa(project, capsys):
    write(project, "model.py", "# onnxfix: noqa\n" + HAZARD)
    assert run(["model.py"], capsys)[0] == 0


def test_config_select_exclude_per_file_ignores_and_cli_wins(project, capsys):
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [tool.onnxfix]
            exporters = ["dynamo", "legacy"]
            ignore = ["ONX401"]
            exclude = ["generated"]
            per-file-ignores = {"legacy_*.py" = ["ONX2"]}
            unsafe-fixes = true
            """
        )
    )
    write(project, "pkg/model.py", HAZARD)
    write(project, "pkg/legacy_model.py", HAZARD)
    write(project, "pkg/generated/model.py", HAZARD)
    _, out, _ = run(["pkg", "-q"], capsys)
    assert [(l.split(":")[0], l.split()[1]) for l in out.splitlines()] == [
        ("pkg/legacy_model.py", "ONX301"),
        ("pkg/model.py", "ONX201"),
        ("pkg/model.py", "ONX301"),
    ]
    _, out, _ = run(["pkg", "-q", "--ignore", "ONX3"], capsys)  # the flag replaces the config's list
    assert [(l.split(":")[0], l.split()[1]) for l in out.splitlines()] == [
        ("pkg/legacy_model.py", "ONX401"),  # per-file-ignores still applies
        ("pkg/model.py", "ONX401"),
        ("pkg/model.py", "ONX201"),
    ]


def test_unknown_config_key_is_an_error(project, capsys):
    (project / "pyproject.toml").write_text("[tool.onnxfix]\nselct = ['ONX2']\n")
    write(project, "model.py", HAZARD)
    code, out, err = run(["model.py"], capsys)
    assert code == 2
    assert "unknown key(s) in [tool.onnxfix]: selct" in err


def test_syntax_error_is_reported_and_other_files_still_checked(project, capsys):
    write(project, "a_broken.py", "class M(:\n    pass\n")
    write(project, "b_model.py", HAZARD)
    code, out, err = run([".", "-q"], capsys)
    assert code == 2
    assert err.startswith("a_broken.py:1:")
    assert ": error: syntax error:" in err
    assert len(out.splitlines()) == 3  # b_model.py was still checked


def test_write_skips_broken_file_and_fixes_the_rest(project, capsys):
    broken = write(project, "a_broken.py", "def f(:\n")
    model = write(project, "b_model.py", HAZARD)
    code, _, _ = run([".", "--write"], capsys)
    assert code == 2
    assert broken.read_text() == "def f(:\n"
    assert model.read_text() == FIXED


def test_undecodable_file_is_an_error_and_untouched(project, capsys):
    path = project / "bad.py"
    raw = b"x = 1\ny = '\xff\xfe'\n"
    path.write_bytes(raw)
    code, _, err = run(["bad.py", "--write"], capsys)
    assert code == 2
    assert err == "bad.py:2:6: error: cannot decode as utf-8: invalid start byte\n"
    assert path.read_bytes() == raw


def test_missing_path_is_an_error(project, capsys):
    code, _, err = run(["nope.py"], capsys)
    assert code == 2
    assert err == "nope.py:1:1: error: no such file or directory\n"


def test_write_keeps_crlf_bom_and_permissions(project, capsys):
    path = project / "model.py"
    path.write_bytes(b"\xef\xbb\xbf" + HAZARD.replace("\n", "\r\n").encode())
    os.chmod(path, 0o750)
    run(["model.py", "--write"], capsys)
    assert path.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o750


def test_inserted_import_uses_the_files_line_ending(project, capsys):
    path = project / "model.py"
    # torch bound under an alias: the fix uses it and adds no import
    path.write_bytes(
        b"import numpy as np\r\nfrom torch import nn\r\nimport torch as T\r\n\r\n\r\nclass M(nn.Module):\r\n"
        b"    def forward(self, x):\r\n        return x + T.from_numpy(np.zeros(x.shape[1], dtype=np.float32))\r\n"
    )
    run(["model.py", "--write"], capsys)
    assert path.read_bytes().endswith(b"return x + T.zeros(x.shape[1], dtype=T.float32)\r\n")
    # torch not bound as a module: the fix adds `import torch`, with the file's CRLF
    path.write_bytes(
        b"import numpy as np\r\nfrom torch import nn, from_numpy\r\n\r\n\r\nclass M(nn.Module):\r\n"
        b"    def forward(self, x):\r\n        return x + from_numpy(np.zeros(x.shape[1], dtype=np.float32))\r\n"
    )
    run(["model.py", "--write"], capsys)
    assert path.read_bytes() == (  # numpy's import went with its last use
        b"from torch import nn, from_numpy\r\nimport torch\r\n\r\n\r\nclass M(nn.Module):\r\n"
        b"    def forward(self, x):\r\n        return x + torch.zeros(x.shape[1], dtype=torch.float32)\r\n"
    )


def test_file_without_findings_stays_byte_identical(project, capsys):
    raw = b"# -*- coding: utf-8 -*-\r\nimport torch\n\n\ndef f(x):\n\treturn x.data  # not export-time\r\n"
    path = project / "clean.py"
    path.write_bytes(raw)
    before = path.stat().st_mtime_ns
    assert run(["clean.py", "--write"], capsys)[0] == 0
    assert path.read_bytes() == raw
    assert path.stat().st_mtime_ns == before


def test_json_format(project, capsys):
    write(project, "model.py", HAZARD)
    code, out, _ = run(["model.py", "--format", "json", "--select", "ONX401"], capsys)
    assert code == 1
    assert json.loads(out) == [
        {
            "code": "ONX401",
            "name": "inplace-shape-math",
            "message": "in-place `+=` on `s`, a value taken from a tensor shape: the legacy exporter "
            "mutates the traced size and exports a wrong model",
            "filename": "model.py",
            "location": {"row": 8, "column": 9},
            "end_location": {"row": 8, "column": 15},
            "exporters": ["legacy"],
            "reached_from": None,
            "fix": {
                "applicability": "safe",
                "message": "Rewrite as `s = s + ...`",
                "edits": [{"content": "s = s + 1", "start": 143, "end": 149}],
            },
        }
    ]


def test_github_and_sarif_formats(project, capsys):
    write(project, "model.py", HAZARD)
    _, out, _ = run(["model.py", "--format", "github", "--select", "ONX201"], capsys)
    assert out == (
        "::error title=onnxfix (ONX201),file=model.py,line=9,col=23,endLine=9,endColumn=31::"
        "model.py:9:23: ONX201 `.item()` used as a size: the legacy exporter bakes the value in as a "
        "constant; pass the tensor\n"
    )
    _, out, _ = run(["model.py", "--format", "sarif", "--select", "ONX201"], capsys)
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "ONX201"
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 9, "startColumn": 23, "endLine": 9, "endColumn": 31,
    }
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["id"] == "ONX201"


def test_exit_zero_and_quiet(project, capsys):
    write(project, "model.py", HAZARD)
    code, out, _ = run(["model.py", "--exit-zero", "-q"], capsys)
    assert code == 0
    assert len(out.splitlines()) == 3 and "Found" not in out


def test_rule_and_rules_commands(capsys):
    code, out, _ = run(["rule", "ONX201"], capsys)
    assert code == 0
    assert out.startswith("# ONX201 (tensor-item)\n\n## What it does\n")
    for section in ("## Why it breaks export", "## Example", "Use instead:", "## Fix safety"):
        assert section in out
    assert run(["rule", "ONX999"], capsys)[0] == 2
    code, out, _ = run(["rules"], capsys)
    assert out.splitlines()[0].split() == ["Code", "Name", "Fix", "Safety", "Breaks", "Summary"]
    assert "ONX401  inplace-shape-math" in out


def help_of(args, capsys, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps help to the terminal width
    with pytest.raises(SystemExit) as exit_:
        main([*args, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_each_subcommand_has_its_own_help(capsys, monkeypatch):
    assert help_of(["rule"], capsys, monkeypatch) == (
        "usage: onnxfix rule [-h] [--format {text,json}] CODE\n\n"
        "Print a rule's documentation: what it finds, why it breaks export, an example\n"
        "and its fix. Also the ONX9xx findings of `onnxfix export`.\n\n"
        "positional arguments:\n"
        "  CODE                  a rule code, e.g. ONX201 (`onnxfix rules` lists them)\n\n"
        "options:\n"
        "  -h, --help            show this help message and exit\n"
        "  --format {text,json}  json: the rule's fields and its rendered documentation\n"
    )
    assert help_of(["rules"], capsys, monkeypatch) == (
        "usage: onnxfix rules [-h] [--format {text,markdown,json}] [--export-codes]\n\n"
        "List the static rules: code, name, fix availability, fix safety, exporters\n"
        "broken, summary.\n\n"
        "options:\n"
        "  -h, --help            show this help message and exit\n"
        "  --format {text,markdown,json}\n"
        "                        json: every rule with its fields and documentation\n"
        "  --export-codes        then list the ONX9xx findings of `onnxfix export`\n"
        "                        (export-time, not static rules)\n"
    )
    usage = "[-h] [--diff | --write] [--unsafe-fixes]\n"
    assert help_of(["check"], capsys, monkeypatch).startswith(f"usage: onnxfix check {usage}")
    top = help_of([], capsys, monkeypatch)
    assert top.startswith("usage: onnxfix [-h] [--diff | --write]")
    assert " ".join(top.split()).count(
        "Subcommands: check (default), rule CODE, rules [--export-codes], export; `onnxfix SUBCOMMAND --help` "
        "describes each."
    ) == 1


def test_rules_export_codes_and_markdown(capsys):
    code, out, _ = run(["rules", "--export-codes"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == lines[len(all_rules()) + 1].split() == ["Code", "Name", "Fix", "Safety", "Breaks", "Summary"]
    assert lines[-1].split()[:2] == ["ONX942", "invalid-onnx"]
    code, out, _ = run(["rules", "--format", "markdown"], capsys)
    assert out.splitlines()[:2] == ["| Code | Name | Fix | Safety | Breaks | Summary |", "|---|---|---|---|---|---|"]


def test_rule_and_rules_print_json(capsys):
    from onnxfix.patterns import rule_by_code
    from onnxfix.patterns.export_codes import CODES

    code, out, _ = run(["rules", "--format", "json"], capsys)
    rules = json.loads(out)
    assert code == 0 and [r["code"] for r in rules] == [r.code for r in all_rules()]
    item = next(r for r in rules if r["code"] == "ONX401")
    rule = rule_by_code("ONX401")
    assert item == {
        "code": "ONX401", "name": "inplace-shape-math", "kind": "static", "summary": rule.summary,
        "fix": rule.fix_availability, "safety": rule.default_safety, "exporters": list(rule.exporters),
        "fixed_by": [], "explanation": rule.doc.render("ONX401", "inplace-shape-math"),
    }
    code, out, _ = run(["rules", "--format=json", "--export-codes"], capsys)
    assert [r["code"] for r in json.loads(out)] == [r.code for r in all_rules()] + [c.code for c in CODES]
    code, out, _ = run(["rule", "ONX201", "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["explanation"] == run(["rule", "ONX201"], capsys)[1]
    code, out, _ = run(["rule", "--format", "json", "ONX940"], capsys)
    document = json.loads(out)
    assert (document["kind"], document["fixed_by"]) == ("export", list(next(c for c in CODES if c.code == "ONX940").fixed_by))
    for args in (["rules", "--format", "xml"], ["rule", "ONX201", "--format", "yaml"]):
        with pytest.raises(SystemExit) as exit_:
            main(args)
        assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_static_path_imports_no_torch_and_runs_no_user_code(tmp_path):
    marker = tmp_path / "executed"
    model = tmp_path / "model.py"
    model.write_text(
        f"open({str(marker)!r}, 'w').write('ran')\nraise SystemExit(3)\n" + HAZARD
    )
    probe = (
        "import sys\nfrom onnxfix.cli import main\n"
        f"code = main([{str(model)!r}, '--diff', '--exporters', 'dynamo,legacy'])\n"
        "heavy = sorted(m for m in ('torch', 'numpy', 'onnx', 'onnxruntime', 'libcst') if m in sys.modules)\n"
        "print('EXIT', code, 'HEAVY', heavy)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert result.stdout.strip().splitlines()[-1] == "EXIT 1 HEAVY []"
    assert not marker.exists()


def test_export_guards_keep_an_exporter_away_from_a_finding(capsys):
    """`if not torch.compiler.is_exporting():` code never runs under the dynamo exporter and
    `if torch.jit.is_tracing():` code only under the legacy one (measured on torch 2.13): with
    the default dynamo target the guarded calls are not reported; with legacy they are, for
    legacy only."""
    fixture = str(Path(__file__).parent / "fixtures" / "ONX512" / "export_guards.py")
    assert run([fixture, "--exporters", "dynamo"], capsys)[0] == 0
    code, out, _ = run([fixture, "--exporters", "dynamo,legacy", "--format", "json"], capsys)
    assert code == 1
    assert [(f["location"]["row"], f["exporters"]) for f in json.loads(out)] == [(11, ["legacy"]), (15, ["legacy"])]


IN_ONNX_EXPORT = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, system, values):
        if not torch.onnx.is_in_onnx_export():
            return torch.linalg.solve_triangular(system, values, upper=False)
        cheap = values if torch.onnx.is_in_onnx_export() else torch.linalg.cholesky(system)
        return cheap + torch.linalg.cholesky(system)
"""


def test_is_in_onnx_export_keeps_both_exporters_away(tmp_path, capsys):
    """`torch.onnx.is_in_onnx_export()` is True under both exporters while they trace (the ONX522
    helpers and ONX521's fix rely on it): the body of `if not torch.onnx.is_in_onnx_export():` and
    the else of `... if torch.onnx.is_in_onnx_export() else ...` are not reported; the code after
    the early return is."""
    model = tmp_path / "model.py"
    model.write_text(IN_ONNX_EXPORT, encoding="utf-8")
    code, out, _ = run([model, "--exporters", "dynamo,legacy", "--format", "json", "--no-cache"], capsys)
    assert code == 1
    assert [(f["location"]["row"], f["exporters"]) for f in json.loads(out)] == [(10, ["dynamo", "legacy"])]


REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("args", "code"), [
    (["model.py", "--no-cache"], 1),
    (["model.py", "--no-cache", "--exit-zero"], 0),
    (["model.py", "--no-cache", "--format", "json"], 1),
    (["rules"], 0),
])
def test_a_reader_that_leaves_early_is_not_an_error(project, args, code):
    """`onnxfix . | head -1`: no BrokenPipeError traceback, and the exit code the run earned.
    The pipe's read end is closed before onnxfix writes, so the first write fails."""
    write(project, "model.py", HAZARD)
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        result = subprocess.run([sys.executable, "-m", "onnxfix", *args], stdout=write_end,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=project)
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (code, "")


def test_tracing_guards_and_script_if_tracing_per_exporter(capsys):
    """torchvision's guards (tests/test_export_guards.py measures them): code after `if
    torchvision._is_tracing(): return ...` and in the else of `if torch._C._get_tracing_state():`
    runs under dynamo only; a `@torch.jit._script_if_tracing` function called only under the
    guard runs under legacy only, compiled by TorchScript: its loop and int() are not
    reported, its `//` is (for legacy); one called unguarded keeps its loop for dynamo."""
    fixture = str(Path(__file__).parent / "fixtures" / "ONX603" / "tracing_guards.py")
    code, out, _ = run([fixture, "--exporters", "dynamo,legacy", "--format", "json"], capsys)
    assert code == 1
    assert [(f["code"], f["location"]["row"], f["exporters"]) for f in json.loads(out)] == [
        ("ONX518", 8, ["legacy"]), ("ONX603", 23, ["dynamo"]), ("ONX603", 32, ["dynamo"]),
    ]


def test_a_warm_cache_keeps_a_fix_and_its_stronger_alternative(tmp_path, capsys):
    """julius's `int(f)` of `f = new_sr * length / old_sr`: `torch.sym_int` with `--write`, the floor
    division with `--unsafe-fixes`, from a cold and a warm cache alike."""
    model = tmp_path / "m.py"
    model.write_text(
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def __init__(self, new_sr: int, old_sr: int):\n        super().__init__()\n"
        "        self.new_sr = new_sr\n        self.old_sr = old_sr\n\n"
        "    def forward(self, x):\n        length = x.shape[-1]\n"
        "        f = self.new_sr * length / self.old_sr\n        return x[..., : int(f)]\n"
    )
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for _ in range(2):  # cold, then warm
        main([str(model), "--diff", *cache])
        assert "+        return x[..., : torch.sym_int(f)]" in capsys.readouterr().out
        main([str(model), "--diff", "--unsafe-fixes", *cache])
        assert "+        return x[..., : self.new_sr * length // self.old_sr]" in capsys.readouterr().out

