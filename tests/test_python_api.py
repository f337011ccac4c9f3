"""The Python API on live models: onnxfix.export gives the verdicts and findings the CLI gives
on an equivalent factory file; onnxfix.check/fix on module objects; argument errors.

The three models below are copies of tests/export_models/{correct,bakes_size,data_branch}.py,
defined here, in the test's own file, as a notebook or a script would define them. Findings
are compared by the text of the line they point at, since the two copies live in different files.
Exports are slow: each model is exported once per module (scope="module" fixtures).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from torch import nn

import onnxfix
from html_tables import Tables as _Tables
from onnxfix.cli import main as cli_main

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "tests" / "export_models"
THIS_SOURCE = Path(__file__).read_text()


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x)) * scale


class ChunkMean(nn.Module):
    def forward(self, x: torch.Tensor, chunks: torch.Tensor) -> torch.Tensor:
        pieces = x.reshape(x.shape[0], chunks.item(), -1)
        return pieces.mean(dim=-1)


class Gate(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum().item() > 0:
            return x * 2
        return -x


class WithLambda(nn.Module):
    """A lambda attribute: pickling fails, so the child re-creates it from its state dict."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.act = lambda t: t * 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.lin(x))


pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


@pytest.fixture(scope="module", autouse=True)
def _exports_in_pytest_tmp(tmp_path_factory):
    """onnxfix.export without `f` writes into a fresh temporary folder (the path it returns, for a
    notebook): here into pytest's, which its later runs clean, not /tmp's."""
    import tempfile

    previous, tempfile.tempdir = tempfile.tempdir, str(tmp_path_factory.mktemp("exports"))
    yield
    tempfile.tempdir = previous


def _cli(argv: list[str]) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(["export", "--format", "json", "--no-progress", *argv])
    (target,) = json.loads(out.getvalue())["targets"]
    return target


def _line(filename: str, row: int) -> str:
    return Path(filename).read_text().splitlines()[row - 1].strip()


def _comparable(results: list[dict]) -> list[tuple]:
    """Verdicts, stages, inputs and findings, each finding by the text of its line."""
    return [(
        r["exporter"], r["verdict"], r["stages"], [(p["probe"], p["ok"]) for p in r["probes"]],
        [(f["code"], f["exporter"], re.sub(r"at line \d+:", "at line N:", f["message"]), _line(f["filename"], f["location"]["row"]), f["location"]["column"],
          [(l["code"], _line(l["filename"], l["row"]), l["relation"]) for l in f["fixed_by"]]) for f in r["findings"]],
    ) for r in results]


# ---- the same verdicts and findings as `onnxfix export` on a factory file ---------------------

@pytest.fixture(scope="module")
def ok_model():
    torch.manual_seed(0)  # as correct.py's make_model, then example_inputs()
    model = Scaled()
    args = (torch.randn(2, 4), torch.tensor(1.5))
    api = onnxfix.export(model, args[:1], kwargs={"scale": args[1]},
                         dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    return api, _cli(["tests/export_models/correct.py:make_model", "--exporter", "dynamo"])


@pytest.fixture(scope="module")
def wrong_model():
    torch.manual_seed(0)  # the worker seeds before example_inputs() and probe_inputs()
    model = ChunkMean()
    args = (torch.randn(2, 12), torch.tensor(3))
    probes = [(torch.randn(2, 12), torch.tensor(4))]
    api = onnxfix.export(model, args, exporters="legacy", probe_inputs=probes, fix=True)
    return api, _cli(["tests/export_models/bakes_size.py:ChunkMean", "--exporter", "legacy", "--fix"])


@pytest.fixture(scope="module")
def capture_fails(tmp_path_factory):
    api = onnxfix.export(Gate(), (torch.ones(2, 3),), exporters=["dynamo"])
    report = tmp_path_factory.mktemp("report") / "gate.html"
    return api, _cli(["tests/export_models/data_branch.py:Gate", "--exporter", "dynamo", "--report", str(report)]), report


def test_ok_model_matches_the_cli(ok_model):
    api, cli = ok_model
    assert (api.verdicts, api.ok, api.transport) == ({"dynamo": "OK"}, True, "pickle")
    assert _comparable(api.to_json()["results"]) == _comparable(cli["results"])
    assert [p.probe for p in api.inputs["dynamo"]] == [
        "export inputs", "generated (other values)", "generated (dynamic dims +1)", "generated (dynamic dims +3)"]
    path = api.onnx_paths["dynamo"]
    assert path.endswith("model.onnx") and Path(path).is_file()
    assert api.findings == [] and api.static_findings == []


def test_silently_wrong_model_matches_the_cli_before_and_after_fix(wrong_model):
    api, cli = wrong_model
    assert [r.verdict.verdict for r in api.before] == ["SILENTLY-WRONG"]
    assert _comparable(api.to_json()["results"]) == _comparable(cli["results"])
    assert [f["code"] for r in api.to_json()["results"] for f in r["findings"]] == ["ONX901", "ONX945", "ONX940"]
    # the fixed copy of this very file stood in for its module in the export process
    assert api.verdicts == {"legacy": "OK"}
    assert _comparable(api.to_json()["fix"]["results"]) == _comparable(cli["fix"]["results"])
    assert "-        pieces = x.reshape(x.shape[0], chunks.item(), -1)\n" in api.fix.diff
    assert "+        pieces = x.reshape(x.shape[0], chunks, -1)\n" in api.fix.diff
    assert Path(__file__).read_text() == THIS_SOURCE, "fix=True must not touch the file"


def test_capture_failure_matches_the_cli(capture_fails):
    api, cli, _ = capture_fails
    assert api.verdicts == {"dynamo": "EXPORT-FAILS"}
    assert _comparable(api.to_json()["results"]) == _comparable(cli["results"])
    (finding,) = api.findings
    here = Path(__file__).read_text().splitlines()
    assert (finding.code, finding.location.path, finding.location.line) == (
        "ONX913", str(Path(__file__).resolve()), here.index("        if x.sum().item() > 0:") + 1)
    # only this class's static findings count, not the other models' in the same file
    assert [(f.code, f.line) for f in api.static_findings] == [("ONX201", finding.location.line), ("ONX601", finding.location.line)]
    assert api.stages == {"dynamo": {"load": "ok", "export": "failed", "checker": "skipped", "runtime": "skipped", "numerics": "skipped"}}


def test_repr_and_html(capture_fails, tmp_path):
    api, _, cli_report = capture_fails
    text = repr(api)
    assert text.splitlines()[1].startswith("  dynamo  EXPORT-FAILS    load ok  export FAILED  checker -")
    assert text.splitlines()[0] == "Gate" and text.endswith("0 of 1 export(s) OK.")
    line = Path(__file__).read_text().splitlines().index("        if x.sum().item() > 0:") + 1
    notebook, page, cli_page = _Tables(), _Tables(), _Tables()
    notebook.feed(api._repr_html_())
    page.feed(api.write_report(tmp_path / "gate.html").read_text())
    cli_page.feed(cli_report.read_text())
    message = api.findings[0].message
    for parsed, path, row in ((notebook, "tests/test_python_api.py", line), (page, "tests/test_python_api.py", line),
                              (cli_page, "tests/export_models/data_branch.py", 9)):
        assert parsed.tables["findings"] == [[
            ["code", "exporter", "location", "message", "fixed by"],
            ["ONX913", "dynamo", f"{path}:{row}:12", re.sub(r"at line \d+:", f"at line {row}:", message), f"ONX201 at {path}:{row} (no automatic fix), ONX601 at {path}:{row}"],
        ]]
        assert f"{row:>5}          if x.sum().item() > 0:\n" in parsed.pres[0]


# ---- how the model reaches the child process -------------------------------------------------

def test_an_unpicklable_model_is_recreated_from_its_class_and_state_dict(tmp_path):
    import onnx
    from onnx import numpy_helper

    torch.manual_seed(7)
    model = WithLambda()
    result = onnxfix.export(model, (torch.randn(5, 3),), tmp_path / "m.onnx", exporters="legacy")
    assert (result.transport, result.verdicts) == ("state_dict", {"legacy": "OK"})
    assert result.onnx_paths == {"legacy": str(tmp_path / "m.onnx")}
    weights = [numpy_helper.to_array(t) for t in onnx.load(str(tmp_path / "m.onnx")).graph.initializer]
    # the parent's weights, not a fresh initialisation in the child
    assert any(w.shape == (2, 3) and (w == model.lin.weight.detach().numpy()).all() for w in weights)


def test_a_class_defined_in_the_running_script(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""\
        import torch
        import onnxfix


        class Double(torch.nn.Module):
            def forward(self, x):
                return x * 2


        if __name__ == "__main__":
            result = onnxfix.export(Double(), (torch.ones(2),), exporters="legacy")
            print(result.transport, result.verdicts)
    """))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)})
    assert run.stdout.splitlines()[-1] == "pickle {'legacy': 'OK'}", run.stderr


def test_a_model_that_neither_pickles_nor_recreates_is_an_argument_error():
    def build():
        class Local(nn.Module):
            def __init__(self, n):
                super().__init__()
                self.f = lambda t: t * n

            def forward(self, x):
                return self.f(x)

        return Local(2)

    model = build()
    qualname = type(model).__qualname__
    with pytest.raises(ValueError) as raised:
        onnxfix.export(model, (torch.ones(2),), exporters="legacy")
    assert str(raised.value) == (
        f"model: cannot reach the export process: pickling failed (AttributeError: Can't pickle local object "
        f"'{qualname}'), and {qualname} cannot be re-created as Local() (it must be defined at module level "
        "and take no arguments)")


# ---- bad arguments: clear errors, no export ---------------------------------------------------

@pytest.mark.parametrize("call, error, message", [
    (lambda: onnxfix.export("model", ()), TypeError, "model: expected a torch.nn.Module, got str"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), exporters="onnx"), ValueError,
     "exporters: expected 'dynamo', 'legacy', 'both' or a list of them, got 'onnx'"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), dynamic_shapes={"y": {0: "b"}}), ValueError,
     "dynamic_shapes: 'y' is not an input of forward() (inputs: x)"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), dynamic_shapes={"x": {3: "b"}}), ValueError,
     "dynamic_shapes['x']: dim 3 out of range for a 1-d input"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), probe_inputs=[(torch.ones(2), torch.ones(2))]), ValueError,
     "probe_inputs[0]: 2 inputs, the export has 1"),
    (lambda: onnxfix.export(Gate(), (), kwargs={"y": torch.ones(2)}), TypeError,
     "args/kwargs do not match Gate.forward(x: 'torch.Tensor') -> 'torch.Tensor': missing a required argument: 'x'"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), f=3), TypeError, "f: expected a file path or None, got int"),
    (lambda: onnxfix.export(Gate(), (torch.ones(2),), fix="yes"), TypeError, "fix: expected True or False, got 'yes'"),
    (lambda: onnxfix.check(3), TypeError, "obj_or_path: expected an nn.Module, a class, a path or a list of paths, got int"),
])
def test_bad_arguments_name_the_argument(call, error, message):
    with pytest.raises(error) as raised:
        call()
    assert str(raised.value) == message


# ---- check and fix on a module object -----------------------------------------------------------

BLOCK = '''\
import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = int(x.sum().item())
        return x.data[:n] * 2
'''


@pytest.fixture
def block_module(tmp_path, monkeypatch):
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "blocks.py").write_text(BLOCK)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "blocks", raising=False)
    import blocks

    return folder / "blocks.py", blocks


def test_check_a_module_object_reports_its_class_file(block_module, capsys):
    path, blocks = block_module
    model = nn.Sequential(nn.Linear(2, 2), blocks.Block())  # torch's own classes are not the user's
    result = onnxfix.check(model, exporters="both")
    cli_main(["--format", "json", "--no-cache", "--exporters", "dynamo,legacy", str(path)])
    expected = json.loads(capsys.readouterr().out)
    assert result.paths == [path.resolve()]
    assert [(f.code, f.path, f.line, f.col) for f in result.findings] == [
        (f["code"], f["filename"], f["location"]["row"], f["location"]["column"]) for f in expected]
    assert expected and all(f.path == str(path.resolve()) for f in result.findings)
    assert repr(result).splitlines()[-2:] == ["Found 2 findings (exporters: dynamo, legacy).", "[*] 2 fixable with `--write`."]


def test_fix_returns_the_diff_and_writes_on_request(block_module, capsys):
    path, blocks = block_module
    diff = onnxfix.fix(blocks.Block(), exporters="both")
    cli_main(["--diff", "--no-cache", "--exporters", "dynamo,legacy", str(path)])
    assert diff and diff == capsys.readouterr().out
    assert path.read_text() == BLOCK
    assert onnxfix.fix(path, exporters="both", write=True) == diff
    assert path.read_text() != BLOCK and onnxfix.fix(path, exporters="both") == ""


def test_import_onnxfix_does_not_import_torch():
    probe = "import sys, onnxfix; print(onnxfix.export.__module__, 'torch' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONPATH": str(REPO)})
    assert run.stdout.strip() == "onnxfix.exporter.python_api False"  # the export half, torch-free at import


def test_torch_export_dynamic_shapes_become_named_dims():
    from torch.export import Dim

    from onnxfix.exporter.python_api import dynamic_dims, positional_args

    class Two(nn.Module):
        def forward(self, x, y=None, z=None):
            return x

    x, y = torch.ones(2, 3), torch.ones(4)
    assert dynamic_dims(Two(), (x, y), {"x": (Dim("batch"), Dim.AUTO), "y": {0: Dim.STATIC}}) == {
        "x": {0: "batch", 1: "x_dim1"}}
    assert dynamic_dims(Two(), (x, y), [{-2: "n"}, ("n",)]) == {"x": {0: "n"}, "y": {0: "n"}}
    # kwargs become positional inputs; a skipped parameter before them gets its default
    assert positional_args(Two(), x, {"z": y}) == (x, None, y)


def test_decompose_takes_decomposition_names_not_rule_codes():
    from onnxfix.exporter.python_api import _export_options
    options = _export_options(None, "dynamo", False, False, None, ["rfftfreq", " linalg_inv "], 60)
    assert options["decompose"] == ("rfftfreq", "linalg_inv")
    with pytest.raises(ValueError) as raised:
        onnxfix.export(Gate(), (torch.ones(2),), decompose=["ONX513"])
    assert str(raised.value).startswith("decompose: unknown ONX513; available: ")
    with pytest.raises(TypeError) as raised:
        onnxfix.export(Gate(), (torch.ones(2),), decompose=[3])
    assert str(raised.value) == "decompose: expected decomposition names (strings), got [3]"
