"""The command line as users meet it: reports, exit codes, --diff/--write, noqa, config, encodings
(formats and subcommands: tests/test_cli_output.py)."""

import json
import os
import stat
import sys
import textwrap

import pytest

from cli_project import CLEAN, FIXED, HAZARD, project, run, write  # noqa: F401 - project is a fixture


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


BEST_ROWS = """\
import torch
from torch import nn


class Keypoints(nn.Module):
    def __init__(self, n_limit=8):
        super().__init__()
        self.n_limit = n_limit

    def forward(self, scores):
        keep = (scores > 0.5).nonzero()[:, 0]
        if len(keep) > self.n_limit:
            order = scores[keep].sort(descending=True)[1]
            keep = keep[order[:self.n_limit]]
        return keep
"""


def test_a_finding_another_rule_fixes_stands_when_that_rule_is_ignored(project, capsys):
    """ONX601 leaves an `if` around a cut to the k best rows of a selection to ONX615, which fixes
    it; with ONX615 ignored, ONX601's finding is reported (not nothing)."""
    write(project, "model.py", BEST_ROWS)
    _, out, _ = run(["model.py", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["ONX615"]
    _, out, _ = run(["model.py", "-q", "--ignore", "ONX615"], capsys)
    assert [line.split()[:2] for line in out.splitlines()] == [["model.py:12:12:", "ONX601"]]


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


ALIASED_FORWARD = '''import torch
from torch import nn


class Head(nn.Module):
    def simple_test(self, scores, boxes):
        if scores.shape[0] > 4:
            best = scores.amax(1)
            _, inds = best.topk(4)
            boxes = boxes[inds]
        return boxes

    forward = simple_test
'''


def test_a_forward_alias_is_reported_and_fixed_alike(project, capsys):
    """mmdetection's `forward = simple_test`: the check run and the fix run (which rebuilds the
    reach from the project's keys) both reach the aliased method."""
    write(project, "head.py", ALIASED_FORWARD)
    code, out, _ = run(["head.py", "--no-cache"], capsys)
    assert code == 1 and out.startswith("head.py:7:12: ONX615 [*] ")
    code, out, _ = run(["head.py", "--write", "--no-cache"], capsys)
    text = (project / "head.py").read_text()
    assert "if _onnx_size_over(scores.shape[0], 4):\n" in text and "_onnx_topk_over(scores.shape[0], best, 4)" in text
    assert run(["head.py", "--no-cache"], capsys)[0] == 0
