"""The command line's output formats and subcommands: JSON, GitHub and SARIF reports, `rule` and
`rules`, help texts, guards that keep an exporter away, and the static path's promise of no torch
and no user code. Split from tests/test_cli.py (size)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_project import HAZARD, project, run, write  # noqa: F401 - project is a fixture
from onnxfix.cli import main
from onnxfix.patterns import all_rules


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
    assert [(f["location"]["row"], f["exporters"]) for f in json.loads(out)] == [(11, ["legacy"]), (15, ["legacy"]), (15, ["legacy"])]


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
    reported, its `//` is (for legacy); one called unguarded keeps its loop for dynamo, and the
    dynamo-only code's `len(t)` and `float(size)` are reported for dynamo (non-strict torch.export
    specializes them)."""
    fixture = str(Path(__file__).parent / "fixtures" / "ONX603" / "tracing_guards.py")
    code, out, _ = run([fixture, "--exporters", "dynamo,legacy", "--format", "json"], capsys)
    assert code == 1
    assert [(f["code"], f["location"]["row"], f["exporters"]) for f in json.loads(out)] == [
        ("ONX518", 8, ["legacy"]), ("ONX603", 23, ["dynamo"]), ("ONX603", 32, ["dynamo"]), ("ONX204", 32, ["dynamo"]),
        ("ONX203", 42, ["dynamo"]), ("ONX204", 47, ["dynamo"]),
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


def test_the_legacy_form_of_a_fix_where_the_project_targets_legacy_from_a_warm_cache_too(tmp_path, capsys):
    """`int(h * 0.75)` of a size: `torch.sym_int` for a project on torch.export alone (no helper),
    `_onnx_sym_int` (a graph value while the legacy exporter traces) where it targets legacy too;
    with `--unsafe-fixes` the same (no stronger form); from a cold and a warm cache alike."""
    model = tmp_path / "m.py"
    model.write_text(
        "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
        "    def forward(self, x):\n        n = int(x.shape[1] * 0.75)\n        return x[:, :n]\n"
    )
    cache = ["--cache-dir", str(tmp_path / "cache")]
    for _ in range(2):  # cold, then warm
        main([str(model), "--diff", "--exporters", "dynamo", *cache])
        out = capsys.readouterr().out
        assert "+        n = torch.sym_int(x.shape[1] * 0.75)" in out and "def _onnx_sym_int" not in out
        for unsafe in ([], ["--unsafe-fixes"]):
            main([str(model), "--diff", "--exporters", "dynamo,legacy", *unsafe, *cache])
            out = capsys.readouterr().out
            assert "+        n = _onnx_sym_int(x.shape[1] * 0.75)" in out and "+def _onnx_sym_int(x):" in out
        # the JSON edits are the fix --write applies (the legacy form resolved before any reader)
        main([str(model), "--format", "json", "--exporters", "dynamo,legacy", *cache])
        (finding,) = json.loads(capsys.readouterr().out)
        assert [e["content"] for e in finding["fix"]["edits"]] == ["_onnx_sym_int"]
