"""Whatever a repository contains, onnxfix stays standing: each bad input gets a clear message
naming the file (and line), exit code 2, no partial write, and the other files are still fixed.
Every write keeps encoding, BOM, line endings, permissions and owner.

(test_cli.py covers: a syntax error beside a good file, undecodable bytes, a missing path,
CRLF + BOM + mode on write, CRLF for an inserted import, byte-identical clean files.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from onnxfix.cli import main
from onnxfix.rewriter import engine
from onnxfix.rewriter.source import SourceError, SourceFile

HAZARD = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor, n: torch.Tensor):
            s = x.size(1)
            s += 1
            return x.reshape(n.item(), -1) * s
    """
)
FIXED = HAZARD.replace("s += 1", "s = s + 1").replace("n.item()", "n")
# A fix that needs `import torch` (torch is bound only through `from torch import ...`).
NEEDS_IMPORT = textwrap.dedent(
    """\
    import numpy as np
    from torch import nn, from_numpy


    class M(nn.Module):
        def forward(self, x):
            return x + from_numpy(np.zeros(x.shape[1], dtype=np.float32))
    """
)
NEEDS_IMPORT_FIXED = textwrap.dedent(  # the fix removed numpy's last use, and so its import
    """\
    from torch import nn, from_numpy
    import torch


    class M(nn.Module):
        def forward(self, x):
            return x + torch.zeros(x.shape[1], dtype=torch.float32)
    """
)
NOBODY = 65534


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def good_neighbour(folder: Path) -> Path:
    path = folder / "zz_model.py"
    path.write_text(HAZARD)
    return path


# -- files that cannot be processed: message, exit 2, untouched, the others still fixed --------

BAD_FILES = {
    "syntax_error": (b"import torch\n\ndef f(:\n    pass\n", "bad.py:3:7: error: syntax error: invalid syntax"),
    "not_utf8": (b"x = 1\ny = '\xe9t\xe9'\n", "bad.py:2:6: error: cannot decode as utf-8: invalid continuation byte"),
    "not_utf8_first_line": (b"\x89PNG\r\n\x1a\n", "bad.py:1:1: error: cannot decode as utf-8: invalid start byte"),
    "unknown_cookie": (b"# -*- coding: klingon -*-\nx = 1\n", "bad.py:1:1: error: bad encoding declaration: unknown encoding: klingon"),
    "bom_and_latin1_cookie": (
        b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "bad.py:1:1: error: bad encoding declaration: encoding problem: utf-8"
    ),
    "binary": (b"x = 1\n\x7fELF\x02\x01\x01\x00\x00\x00", "bad.py:2:1: error: binary file (contains a NUL byte), not Python source"),
    "deep_parentheses": (b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "bad.py:1:205: error: syntax error: too many nested parentheses"),
    "deep_expression": (b"x = " + b"+".join([b"1"] * 100_000) + b"\n", "bad.py:1:1: error: expression too deeply nested to analyse"),
}


@pytest.mark.parametrize("case", BAD_FILES, ids=str)
def test_bad_file_is_reported_untouched_and_others_fixed(case, project, capsys):
    raw, message = BAD_FILES[case]
    bad = project / "bad.py"
    bad.write_bytes(raw)
    model = good_neighbour(project)
    code, out, err = run([".", "--write"], capsys)
    assert code == 2
    assert err == message + "\n"
    assert bad.read_bytes() == raw
    assert model.read_text() == FIXED
    assert out.endswith("1 path(s) could not be checked: see the errors above.\n")


def test_code_too_deep_for_the_rules_is_reported_on_its_function(project, capsys):
    # parses (ast's C parser goes deeper than Python's recursion limit) but a rule recursing
    # over it would not (the NumPy region's data flow, run because of `x.numpy()`): reported as
    # too deep, never a crash.
    # 1,100 terms: deeper than Python's recursion limit (1,000), and no deeper (each `x.data`
    # read walks its ancestors: the rules' time grows with the square of the depth)
    terms = "+".join(["x.data"] * 1100)
    assert 1100 > sys.getrecursionlimit()
    bad = project / "bad.py"
    bad.write_text(
        f"from torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        a = x.numpy()\n        return {terms}\n"
    )
    before = bad.read_bytes()
    model = good_neighbour(project)
    code, _, err = run([".", "--write"], capsys)
    assert code == 2
    assert err in {
        "bad.py:5:1: error: code too deeply nested to analyse\n",
        "bad.py:1:1: error: code too deeply nested to analyse; file skipped\n",
    }
    assert bad.read_bytes() == before
    assert model.read_text() == FIXED


def test_internal_error_in_a_rule_is_reported_for_that_file_only(project, capsys, monkeypatch):
    from onnxfix.patterns import all_rules

    victim = next(r for r in all_rules() if r.code == "ONX401")

    def explode(self, node, ctx):
        if "boom" in ctx.file.source.text:
            raise ZeroDivisionError("rule bug")
        return ()

    monkeypatch.setattr(type(victim), "visit_AugAssign", explode)
    (project / "boom.py").write_text(HAZARD + "# boom\n")
    model = good_neighbour(project)
    code, _, err = run([".", "--write"], capsys)
    assert code == 2
    assert err == "boom.py:1:1: error: internal error while checking M.forward: ZeroDivisionError: rule bug\n"
    assert (project / "boom.py").read_text() == HAZARD + "# boom\n"
    assert model.read_text() == HAZARD.replace("n.item()", "n")  # the exploded rule fixed nothing


def test_internal_error_outside_the_rules_is_reported_for_that_file_only(project, capsys, monkeypatch):
    real_build = engine.ModuleIndex.build

    def build(tree, display_path="", package=None, *rest):
        if display_path == "boom.py":
            raise KeyError("scope bug")
        return real_build(tree, display_path, package, *rest)

    monkeypatch.setattr(engine.ModuleIndex, "build", staticmethod(build))
    (project / "boom.py").write_text(HAZARD)
    model = good_neighbour(project)
    code, _, err = run([".", "--write"], capsys)
    assert code == 2
    assert err == "boom.py:1:1: error: internal error while resolving: KeyError: 'scope bug' (please report this bug)\n"
    assert (project / "boom.py").read_text() == HAZARD
    assert model.read_text() == FIXED


def test_fix_that_would_not_parse_is_an_internal_error_and_nothing_is_written(project, capsys, monkeypatch):
    real_apply = engine.apply_edits
    monkeypatch.setattr(engine, "apply_edits", lambda *a: real_apply(*a) + "\n)(\n")
    path = project / "model.py"
    path.write_text(HAZARD)
    code, _, err = run(["model.py", "--write"], capsys)
    assert code == 2
    assert err.startswith("model.py:1:1: error: internal error: a fix produced code that does not parse")
    assert path.read_text() == HAZARD


# -- odd paths ----------------------------------------------------------------------------

def test_missing_path_others_still_processed(project, capsys):
    model = good_neighbour(project)
    code, _, err = run(["nope.py", "zz_model.py", "--write"], capsys)
    assert code == 2
    assert err == "nope.py:1:1: error: no such file or directory\n"
    assert model.read_text() == FIXED


def test_folder_without_python_files(project, capsys):
    (project / "data").mkdir()
    (project / "data" / "notes.txt").write_text("x.data\n")
    assert run(["data"], capsys) == (0, "No Python files checked (exporters: dynamo, legacy).\n", "warning: no Python files found\n")


def test_empty_file(project, capsys):
    (project / "empty.py").write_bytes(b"")
    assert run(["empty.py", "--write"], capsys) == (0, "All checks passed! (exporters: dynamo, legacy)\n", "")
    assert (project / "empty.py").read_bytes() == b""


def test_symlink_loops_in_a_scanned_folder(project, capsys):
    pkg = project / "pkg"
    pkg.mkdir()
    (pkg / "a.py").symlink_to("b.py")
    (pkg / "b.py").symlink_to("a.py")
    (pkg / "up").symlink_to("..")  # a directory loop
    (pkg / "dangling.py").symlink_to("gone.py")
    model = pkg / "model.py"
    model.write_text(HAZARD)
    code, out, err = run(["pkg", "--write"], capsys)
    assert (code, err) == (1, "")  # loops are not followed, not files: skipped
    assert out == "Fixed 2 findings in 1 file, 0 remaining (exporters: dynamo, legacy).\n"
    assert model.read_text() == FIXED
    code, _, err = run(["pkg/a.py", "pkg/dangling.py"], capsys)
    assert code == 2
    assert err == "pkg/a.py:1:1: error: symbolic link loop\npkg/dangling.py:1:1: error: broken symbolic link\n"


def test_fifo_named_py_does_not_block(project, capsys):
    os.mkfifo(project / "pipe.py")
    model = good_neighbour(project)
    assert run(["."], capsys)[0] == 1  # in a folder: not a regular file, skipped
    code, _, err = run(["pipe.py", "zz_model.py", "--write"], capsys)  # named: reported
    assert code == 2
    assert err == "pipe.py:1:1: error: not a regular file; skipped\n"
    assert model.read_text() == FIXED


def test_directory_named_like_a_python_file_is_scanned_as_a_folder(project, capsys):
    (project / "odd.py").mkdir()
    inner = project / "odd.py" / "model.py"
    inner.write_text(HAZARD)
    code, _, err = run(["odd.py", "--write"], capsys)
    assert (code, err) == (1, "")
    assert inner.read_text() == FIXED


@contextlib.contextmanager
def as_user(uid: int):
    """Drop root's effective uid so permission bits apply (tests run as root in CI)."""
    if os.geteuid() != 0:
        yield
        return
    os.seteuid(uid)
    try:
        yield
    finally:
        os.seteuid(0)


@pytest.fixture
def shared_dir(monkeypatch):
    """A folder that an unprivileged uid may enter (pytest's tmp_path is root-only)."""
    # This interpreter's stdlib lives in a root-only folder: import what a check imports lazily
    # (the operator catalog reads its data through importlib.resources) before dropping to nobody.
    import importlib.readers  # noqa: F401

    folder = Path(tempfile.mkdtemp(prefix="onnxfix-perm-"))
    os.chmod(folder, 0o777)
    (folder / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    monkeypatch.chdir(folder)
    yield folder
    shutil.rmtree(folder)


def test_unreadable_file(shared_dir, capsys):
    secret = shared_dir / "secret.py"
    secret.write_text(HAZARD)
    os.chmod(secret, 0)
    model = good_neighbour(shared_dir)
    os.chmod(model, 0o666)
    with as_user(NOBODY):
        code, _, err = run(["secret.py", "zz_model.py", "--write"], capsys)
    assert code == 2
    assert err == "secret.py:1:1: error: cannot read file: Permission denied\n"
    assert model.read_text() == FIXED


def test_read_only_file_is_refused_for_a_user_without_write_permission(shared_dir, capsys):
    # ruff and black open the file for writing: a user who may not write it gets an error.
    # onnxfix replaces files by rename, which the folder alone would allow: it checks first.
    path = shared_dir / "model.py"
    path.write_text(HAZARD)
    os.chmod(path, 0o444)
    with as_user(NOBODY):
        code, _, err = run(["model.py", "--write"], capsys)
    assert code == 2
    assert err == "model.py:1:1: error: file is read-only (no write permission); not written\n"
    assert path.read_text() == HAZARD


@pytest.mark.skipif(os.geteuid() != 0, reason="only root may write a read-only file")
def test_read_only_file_as_root_is_written_like_ruff_and_black_do_keeping_its_mode(project, capsys):
    path = project / "model.py"
    path.write_text(HAZARD)
    os.chmod(path, 0o444)
    assert run(["model.py", "--write"], capsys)[0] == 1
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file another owner")
def test_write_keeps_the_owner(project, capsys):
    path = project / "model.py"
    path.write_text(HAZARD)
    os.chown(path, NOBODY, NOBODY)
    run(["model.py", "--write"], capsys)
    assert path.read_text() == FIXED
    assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)


def test_write_goes_through_a_symlink_and_keeps_it(project, capsys):
    real = project / "real"
    real.mkdir()
    target = real / "model.py"
    target.write_text(HAZARD)
    (project / "link.py").symlink_to(target)
    run(["link.py", "--write"], capsys)
    assert (project / "link.py").is_symlink()
    assert target.read_text() == FIXED
    assert sorted(p.name for p in real.iterdir()) == ["model.py"]  # no temporary file left


# -- encodings, line endings, whitespace: preserved on write -----------------------------

def test_latin1_cookie_with_non_ascii_content_is_written_back_as_latin1(project, capsys):
    text = "# -*- coding: latin-1 -*-\n# Modèle: très simple, café\n" + HAZARD.replace("# grow", "")
    text = text.replace("s += 1", "s += 1  # élargir")
    path = project / "model.py"
    path.write_bytes(text.encode("latin-1"))
    assert run(["model.py", "--write"], capsys)[0] == 1
    expected = text.replace("s += 1", "s = s + 1").replace("n.item()", "n")
    assert path.read_bytes() == expected.encode("latin-1")
    assert b"\xe8" in path.read_bytes()  # è as one latin-1 byte, not UTF-8's two


def test_utf8_bom_kept_when_an_import_is_inserted(project, capsys):
    path = project / "model.py"
    path.write_bytes(b"\xef\xbb\xbf" + NEEDS_IMPORT.encode())
    run(["model.py", "--write"], capsys)
    assert path.read_bytes() == b"\xef\xbb\xbf" + NEEDS_IMPORT_FIXED.encode()


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_inserted_import_uses_the_files_line_ending(newline, project, capsys):
    path = project / "model.py"
    path.write_bytes(NEEDS_IMPORT.replace("\n", newline).encode())
    run(["model.py", "--write"], capsys)
    assert path.read_bytes() == NEEDS_IMPORT_FIXED.replace("\n", newline).encode()


def test_mixed_line_endings_are_each_kept_and_inserted_code_takes_the_first(project, capsys):
    lines = NEEDS_IMPORT.splitlines(keepends=True)
    mixed = "".join(line.replace("\n", "\r\n") if i % 2 == 0 else line for i, line in enumerate(lines))
    path = project / "model.py"
    path.write_bytes(mixed.encode())
    run(["model.py", "--write"], capsys)
    expected = mixed.replace("from torch import nn, from_numpy\n", "from torch import nn, from_numpy\nimport torch\r\n")
    expected = expected.replace("x + from_numpy(np.zeros(x.shape[1], dtype=np.float32))", "x + torch.zeros(x.shape[1], dtype=torch.float32)")
    expected = expected.replace("import numpy as np\r\n", "", 1)  # numpy's last use went
    assert path.read_bytes() == expected.encode()


def test_tabs_and_form_feeds(project, capsys):
    text = HAZARD.replace("    ", "\t").replace("\n\n\nclass", "\n\f\n\nclass").replace("s += 1", "s\t+= 1\t# tab")
    path = project / "model.py"
    path.write_text(text)
    assert run(["model.py", "--write"], capsys)[0] == 1
    assert path.read_text() == text.replace("s\t+= 1", "s = s + 1").replace("n.item()", "n")


def test_three_megabyte_file(project, capsys):
    """Ten times the largest modeling files of transformers (a few hundred KB): every stage stays linear
    (a 10 MB file took 21 s of the suite's CPU to prove the same)."""
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}  # padding padding padding padding\n\n\n" for i in range(40_000))
    text = filler + HAZARD
    assert len(text.encode()) > 3_000_000
    path = project / "big.py"
    path.write_text(text)
    code, out, err = run(["big.py", "--write"], capsys)
    assert (code, err) == (1, "")
    assert out == "Fixed 2 findings in 1 file, 0 remaining (exporters: dynamo, legacy).\n"
    assert path.read_text() == filler + FIXED


# -- a file that changes between read and write is not overwritten ----------------------

def test_source_file_refuses_to_overwrite_a_file_changed_on_disk(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HAZARD)
    source = SourceFile.read(path)
    path.write_text(HAZARD + "# edited by the user meanwhile\n")
    with pytest.raises(SourceError, match="file changed on disk while onnxfix was working; not written"):
        source.write(FIXED)
    assert path.read_text() == HAZARD + "# edited by the user meanwhile\n"


def test_cli_does_not_overwrite_a_file_changed_during_the_run(project, capsys, monkeypatch):
    path = project / "model.py"
    path.write_text(HAZARD)
    edited = HAZARD + "# edited by the user meanwhile\n"
    real_fix_text = engine.fix_text

    def fix_then_user_edits(source, *args, **kwargs):
        result = real_fix_text(source, *args, **kwargs)
        path.write_text(edited)  # the user saves in the editor while onnxfix works
        return result

    monkeypatch.setattr(engine, "fix_text", fix_then_user_edits)
    code, _, err = run(["model.py", "--write"], capsys)
    assert code == 2
    assert err == "model.py:1:1: error: file changed on disk while onnxfix was working; not written\n"
    assert path.read_text() == edited


def test_unencodable_fix_is_refused_not_half_written(tmp_path):
    path = tmp_path / "model.py"
    raw = "# coding: latin-1\nx = 'é'\n".encode("latin-1")
    path.write_bytes(raw)
    source = SourceFile.read(path)
    with pytest.raises(SourceError, match="cannot be encoded as iso-8859-1"):
        source.write("# coding: latin-1\nx = '€'\n")
    assert path.read_bytes() == raw
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.py"]
