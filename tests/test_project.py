"""Cross-file reachability and the result cache, on the package in tests/projects/multifile."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from onnxfix import cli
from onnxfix.rewriter import engine, run_tasks, runner

PROJECT = Path(__file__).parent / "projects" / "multifile"
BOTH = ["--exporters", "dynamo,legacy"]

BASE = (
    "mfpkg/base.py:7:20: ONX201 `.item()` as a tensor operand: the legacy exporter bakes the value in "
    "as a constant; keep it a tensor (reached from Backbone.forward, mfpkg/backbone.py:12)"
)
LAYERS = (
    "mfpkg/layers.py:12:16: ONX301 [*] `.data` in export-time code: the legacy exporter bakes it in as a "
    "constant and the dynamo exporter can crash; use `.detach()` (reached from Model.forward, mfpkg/model.py:16)"
)
UTILS = (
    "mfpkg/utils.py:5:12: ONX201 `.item()` turns a tensor into a Python number: the legacy exporter "
    "bakes it in as a constant (no fix: the number is returned) (reached from Model.forward, mfpkg/model.py:16)"
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A private copy (tests edit it), as the working directory."""
    copy = tmp_path / "multifile"
    shutil.copytree(PROJECT, copy)
    monkeypatch.chdir(copy)
    monkeypatch.delenv("ONNXFIX_CACHE_DIR", raising=False)
    return copy


def check(capsys, *args: str) -> tuple[int, list[str]]:
    code = cli.main(["-q", *BOTH, *args])
    return code, capsys.readouterr().out.splitlines()


@pytest.fixture
def parses(monkeypatch):
    """Counts files parsed in either pass (the cache must make a warm run parse nothing)."""
    counted: list[str] = []
    real = engine.parse_python

    def counting(text):
        counted.append(text)
        return real(text)

    monkeypatch.setattr(run_tasks, "parse_python", counting)
    monkeypatch.setattr(engine, "parse_python", counting)
    return counted


def test_findings_across_files_are_reported_at_the_helper_line(project, capsys):
    # base class in another file (Backbone(ScaledBase).scale), submodules held in an
    # nn.ModuleList whose class has an unknown base (Block), and a helper reached through a
    # relative import two levels up (ops/shapes.py -> ..utils.to_int). utils.log_loss has the
    # same hazard but only train.py calls it: no finding.
    assert check(capsys, "--no-cache", ".") == (1, [BASE, LAYERS, UTILS])


def test_the_same_findings_in_parallel(project, capsys, monkeypatch):
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 1)
    assert check(capsys, "--no-cache", "-j", "2", ".") == (1, [BASE, LAYERS, UTILS])


def test_a_helper_file_alone_is_checked_with_the_forwards_beside_it(project, capsys):
    # pre-commit passes only the changed file: model.py (not passed) still reaches utils.to_int
    assert check(capsys, "--no-cache", "mfpkg/utils.py") == (1, [UTILS])


def test_a_helper_reached_only_from_training_code_yields_nothing(project, capsys):
    (project / "mfpkg" / "ops" / "shapes.py").write_text(
        "import torch\n\n\ndef flatten_tokens(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:\n"
        "    return x.reshape(n, -1)\n"
    )
    assert check(capsys, "--no-cache", ".") == (1, [BASE, LAYERS])


def test_a_helper_called_under_an_export_guard_keeps_the_guards_exporters(project, capsys):
    """`if torch.jit.is_tracing():` around the call in ops/shapes.py decides which exporters
    run utils.to_int (whose `.item()` matters to legacy only), warm cache or cold."""
    shapes = project / "mfpkg" / "ops" / "shapes.py"
    guarded = (
        "import torch\n\nfrom ..utils import to_int\n\n\n"
        "def flatten_tokens(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:\n"
        "    if {test}torch.jit.is_tracing():\n        return x.reshape(to_int(n), -1)\n"
        "    return x.flatten(1)\n"
    )
    shapes.write_text(guarded.format(test="not "))  # dynamo only: no legacy, no finding
    assert check(capsys, ".") == (1, [BASE, LAYERS])
    assert check(capsys, ".") == (1, [BASE, LAYERS])
    shapes.write_text(guarded.format(test=""))  # legacy only
    assert check(capsys, ".") == (1, [BASE, LAYERS, UTILS])
    assert check(capsys, "--no-cache", ".") == (1, [BASE, LAYERS, UTILS])


def test_a_warm_run_parses_nothing_and_reports_the_same(project, capsys, parses):
    assert check(capsys, ".") == (1, [BASE, LAYERS, UTILS])
    assert parses  # cold: something was parsed
    parses.clear()
    assert check(capsys, ".") == (1, [BASE, LAYERS, UTILS])
    assert parses == []
    assert (project / ".onnxfix_cache" / ".gitignore").read_text().endswith("*\n")


def test_a_cache_filled_from_another_folder_reports_paths_from_this_one(project, capsys, monkeypatch):
    """Cached reach maps name forwards by file identity, not by the path shown from the folder
    of the run that filled them (a pre-commit hook and a developer run from different folders)."""
    cache = ["--cache-dir", str(project / "shared-cache")]
    assert check(capsys, *cache, ".") == (1, [BASE, LAYERS, UTILS])
    monkeypatch.chdir(project / "mfpkg")
    expected = [line.replace("mfpkg/", "") for line in (BASE, LAYERS, UTILS)]
    assert check(capsys, *cache, ".") == (1, expected)
    assert check(capsys, "--no-cache", ".") == (1, expected)


def test_no_cache_neither_reads_nor_writes(project, capsys, parses):
    check(capsys, "--no-cache", ".")
    assert not (project / ".onnxfix_cache").exists()
    check(capsys, ".")
    parses.clear()
    check(capsys, "--no-cache", ".")
    assert parses  # parsed again although a warm cache exists


def test_editing_a_helper_invalidates_its_callers_results(project, capsys, parses):
    check(capsys, ".")
    utils = project / "mfpkg" / "utils.py"
    utils.write_text(utils.read_text().replace("return t.item()", "return t"))
    parses.clear()
    assert check(capsys, ".") == (1, [BASE, LAYERS])
    assert len(parses) < 8  # utils.py and the files whose reach depends on it, not all


def test_editing_the_caller_invalidates_the_unchanged_helpers_results(project, capsys):
    check(capsys, ".")
    model = project / "mfpkg" / "model.py"
    model.write_text(model.read_text().replace("return flatten_tokens(x, n)", "return x"))
    # utils.py and ops/shapes.py did not change, but nothing reaches to_int any more
    assert check(capsys, ".") == (1, [BASE, LAYERS])


def test_settings_are_part_of_the_key(project, capsys):
    check(capsys, ".")
    assert check(capsys, "--ignore", "ONX2", ".") == (1, [LAYERS])
    assert check(capsys, "--exporters", "dynamo", ".") == (1, [LAYERS])


def test_a_corrupt_cache_entry_is_a_miss(project, capsys):
    check(capsys, ".")
    entries = [p for p in (project / ".onnxfix_cache").rglob("*") if p.is_file() and len(p.name) > 30]
    assert entries
    for entry in entries:
        entry.write_text("{not json")
    assert check(capsys, ".") == (1, [BASE, LAYERS, UTILS])


def test_write_fixes_helpers_in_other_files(project, capsys):
    # The fixes are applied in layers.py (ONX301, .detach()) and base.py (ONX201, unsafe), files
    # that nothing in themselves marks as export code.
    code = cli.main(["-q", *BOTH, "--write", "--unsafe-fixes", "."])
    capsys.readouterr()
    assert code == 1
    assert "return y.reshape(y.shape[0], -1).detach()\n" in (project / "mfpkg" / "layers.py").read_text()
    assert "        return x * s\n" in (project / "mfpkg" / "base.py").read_text()
    assert check(capsys, ".")[1] == [UTILS]


class _Terminal:
    """A stderr that says it is a terminal and keeps what is written."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_progress_shows_only_for_long_scans_at_a_terminal(monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(runner.sys, "stderr", terminal)
    assert runner._progress_bar(199, "checking") is None  # short scans stay quiet
    bar = runner._progress_bar(500, "checking")
    bar.update(250)
    bar.refresh()
    assert "checking:  50%" in terminal.text
    bar.close()
    monkeypatch.setattr(runner.sys, "stderr", type("Pipe", (_Terminal,), {"isatty": lambda self: False})())
    assert runner._progress_bar(500, "checking") is None


def _entries(project: Path) -> list[Path]:
    return [p for p in (project / ".onnxfix_cache").rglob("*") if p.is_file() and len(p.name) > 30]


def test_unused_entries_and_other_versions_are_pruned_once_a_day(project, capsys):
    import time

    from onnxfix.rewriter import cache as cache_mod

    folder = project / ".onnxfix_cache"
    check(capsys, ".")  # the first run prunes nothing and stamps the folder
    entries = _entries(project)
    stale, used = entries[0], entries[1]
    month = time.time() - (cache_mod.MAX_UNUSED_DAYS + 1) * cache_mod.DAY
    os.utime(stale, (month, month))
    os.utime(used, (month, month))
    old_version = folder / "0.0.1" / "ab"
    old_version.mkdir(parents=True)
    (old_version / ("c" * 38)).write_text("[]")
    key = used.parent.name + used.name
    assert cache_mod.Cache(folder).get(key) is not None  # a hit re-stamps a month-old entry
    assert cache_mod.Cache(folder).prune() == 0  # pruned less than a day ago: no sweep
    assert stale.exists()
    assert cache_mod.Cache(folder).prune(now=time.time() + cache_mod.DAY + 1) == 1
    assert not stale.exists() and used.exists()
    assert not (folder / "0.0.1").exists()
    assert check(capsys, ".") == (1, [BASE, LAYERS, UTILS])  # a pruned entry is a miss


# -- the cache answers as --no-cache does (issue #17) ---------------------------------------------
EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture
def examples(tmp_path, monkeypatch):
    copy = tmp_path / "work" / "examples"
    shutil.copytree(EXAMPLES, copy)
    monkeypatch.chdir(copy.parent)
    monkeypatch.delenv("ONNXFIX_CACHE_DIR", raising=False)
    return copy


def report(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(["-q", *args])
    return code, capsys.readouterr().out


IN_LEVEL_HEAD = (  # directly inside LevelHead.forward: no "reached from"
    "examples/box_decoder.py:39:17: ONX203 [*] `int()` of a size: the legacy exporter records the size as "
    "a constant; the size is already an int\n"
)


def test_a_cache_filled_under_other_rules_reports_as_no_cache(examples, capsys):
    # The first run caches reach maps only; the second checks each file with the cached map,
    # where the forward of the file itself must still be recognised as its own entry point.
    cache = ["--cache-dir", str(examples.parent / "C")]
    report(capsys, "examples/", "--select", "ONX2", *cache)
    cached = report(capsys, "examples/", *cache)
    fresh = report(capsys, "examples/", "--no-cache")
    assert cached == fresh
    assert IN_LEVEL_HEAD in fresh[1]
    assert fresh[1].count("reached from") == 10
    report(capsys, "examples/", "--select", "ONX3", "--format", "json", *cache)
    cached_json = json.loads(report(capsys, "examples/", "--format", "json", "--select", "ONX2,ONX3", *cache)[1])
    fresh_json = json.loads(report(capsys, "examples/", "--format", "json", "--select", "ONX2,ONX3", "--no-cache")[1])
    assert cached_json == fresh_json
    assert sum(1 for f in fresh_json if f["reached_from"]) == 5


def test_a_cache_used_after_write_and_restore_reports_as_no_cache(examples, capsys):
    cache = ["--cache-dir", str(examples.parent / "C")]
    originals = {p: p.read_bytes() for p in examples.glob("*.py")}
    report(capsys, "examples/", "--select", "ONX2", *cache)
    report(capsys, "examples/", "--write", *cache)
    assert report(capsys, "examples/", *cache) == report(capsys, "examples/", "--no-cache")
    for path, raw in originals.items():  # git checkout
        path.write_bytes(raw)
    cached = report(capsys, "examples/", *cache)
    assert cached == report(capsys, "examples/", "--no-cache")
    assert IN_LEVEL_HEAD in cached[1]


STALE_MODEL = '''\
import torch
from torch import nn

from helpers import scale


class M(nn.Module):
    def forward(self, x: torch.Tensor, n: torch.Tensor):
        m = torch.median(x, dim=1).values
        return scale(x, n) + m
'''
STALE_HELPER = '''\
import torch


def scale(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return x * n.item()
'''


@pytest.mark.parametrize("cache", [["--no-cache"], []])
def test_findings_left_after_write_name_the_written_lines(tmp_path, monkeypatch, capsys, cache):
    # The fix of torch.median inserts its helper above M.forward: the finding left in
    # helpers.py is reached from M.forward at its new line, as the next check says.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(STALE_MODEL)
    (tmp_path / "helpers.py").write_text(STALE_HELPER)
    code, written = report(capsys, *BOTH, "--write", *cache, ".")
    forward = (tmp_path / "model.py").read_text().splitlines().index(
        "    def forward(self, x: torch.Tensor, n: torch.Tensor):") + 1
    assert forward > 8
    assert (code, written) == (1, (
        "helpers.py:5:16: ONX201 `.item()` as a tensor operand: the legacy exporter bakes the value in "
        f"as a constant; keep it a tensor (reached from M.forward, model.py:{forward})\n"
    ))
    assert report(capsys, *BOTH, "--no-cache", ".") == (1, written)
    assert report(capsys, *BOTH, ".") == (1, written)


def test_a_static_forward_reached_through_autograd_function_apply(tmp_path, monkeypatch, capsys):
    # transformers' I-BERT: QuantAct.forward calls FixedPointMul.apply(...), whose static forward
    # (in another file) calls a helper doing NumPy; an unused Function and a class that is not a
    # Function but has an `apply` are not followed.
    (tmp_path / "quant.py").write_text(
        "import numpy as np\nimport torch\n\n\n"
        "def frexp(x):\n    return np.frexp(x.numpy())\n\n\n"
        "class FixedPointMul(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        return frexp(x)\n\n\n"
        "class Unused(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, x):\n        return x.numpy()\n\n\n"
        "class Table:\n    def apply(self, x):\n        return x.numpy()\n"
    )
    (tmp_path / "model.py").write_text(
        "from torch import nn\n\nfrom quant import FixedPointMul, Table\n\n\n"
        "class QuantAct(nn.Module):\n    def forward(self, x):\n"
        "        Table().apply(x)\n        return FixedPointMul.apply(x)\n"
    )
    monkeypatch.chdir(tmp_path)
    code, lines = check(capsys, "--no-cache", ".")
    assert [" ".join(line.split()[:2]) for line in lines] == ["quant.py:6:12: ONX101", "quant.py:6:21: ONX102"]
    assert all(line.endswith("(reached from QuantAct.forward, model.py:7)") for line in lines)


def test_building_an_instance_in_forward_reaches_its_init(tmp_path, monkeypatch, capsys):
    # SAC's SquashedNormal (tests/realworld/sac_actor_normal_validate.py): forward builds a
    # distribution subclass whose __init__ (in another file, up the bases) builds a Normal that
    # validates its arguments; a class only named (isinstance) is not followed.
    (tmp_path / "dists.py").write_text(
        "import numpy as np\nfrom torch import distributions as pyd\n\n\n"
        "class Base:\n    def __init__(self, loc, scale):\n        self.base = pyd.Normal(loc, scale)\n\n\n"
        "class SquashedNormal(Base):\n    pass\n\n\n"
        "class Marker:\n    def __init__(self, x):\n        self.x = np.asarray(x.numpy())\n"
    )
    (tmp_path / "model.py").write_text(
        "from torch import nn\n\nfrom dists import Marker, SquashedNormal\n\n\n"
        "class Actor(nn.Module):\n    def forward(self, mu, std):\n"
        "        if isinstance(mu, Marker):\n            return mu\n"
        "        return SquashedNormal(mu, std).base.mean\n"
    )
    monkeypatch.chdir(tmp_path)
    code, lines = check(capsys, "--no-cache", ".")
    assert [" ".join(line.split()[:2]) for line in lines] == ["dists.py:7:21: ONX604"]
    assert lines[0].endswith("(reached from Actor.forward, model.py:7)")


def test_a_method_of_a_local_instance_is_reached(tmp_path, monkeypatch, capsys):
    # ML-Agents' discrete actor (tests/realworld/mlagents_categorical_dist_pdf_torch_diag.py): a
    # submodule's forward returns `CategoricalDistInstance(logits)` and forward calls `dist.log_prob`,
    # which calls `pdf` (torch.diag); a local built from a class directly, in a module function too;
    # a name rebound by a loop is not followed.
    (tmp_path / "dists.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Categorical:\n    def __init__(self, probs):\n        self.probs = probs\n\n"
        "    def log_prob(self, v):\n        return self.pdf(v).log()\n\n"
        "    def pdf(self, v):\n        return torch.diag(self.probs[v])\n\n"
        "    def greedy(self):\n        return self.probs.numpy()\n\n"
        "    def entropy(self):\n        return self.probs.tolist()\n\n\n"
        "class Head(nn.Module):\n    def forward(self, x):\n        return Categorical(x.softmax(-1))\n"
    )
    (tmp_path / "model.py").write_text(
        "from torch import nn\n\nfrom dists import Categorical, Head\n\n\n"
        "def modes(x):\n    dist = Categorical(x)\n    return dist.greedy()\n\n\n"
        "class Actor(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.head = Head()\n\n"
        "    def forward(self, x, v):\n        dist = self.head(x)\n        for dist in [x]:\n            pass\n"
        "        other = self.head(x)\n        return other.log_prob(v), modes(x), dist.entropy()\n"
    )
    monkeypatch.chdir(tmp_path)
    code, lines = check(capsys, "--no-cache", "--exporters", "dynamo,legacy", ".")
    assert [" ".join(line.split()[:2]) for line in lines] == ["dists.py:13:16: ONX519", "dists.py:16:16: ONX102"]


def test_a_method_of_a_layer_taken_out_of_a_module_list_is_reached(tmp_path, monkeypatch, capsys):
    # A normalizing flow's sampling direction (tests/realworld/cjd_flows_lu_transform_inverse.py):
    # `for i, layer in enumerate(reversed(self.layers)): y = layer.backward(y)` runs each layer's
    # `backward`; a layer taken by index too; a method of a list nobody built from classes is not followed.
    (tmp_path / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class LU(nn.Module):\n    def backward(self, y):\n        return y @ torch.inverse(self.w)\n\n"
        "    def scale(self, y):\n        return y.numpy()\n\n\n"
        "class Flow(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.layers = nn.ModuleList([LU() for _ in range(2)])\n        self.names = ['a']\n\n"
        "    def forward(self, y):\n"
        "        for i, layer in enumerate(reversed(self.layers)):\n            y = layer.backward(y)\n"
        "        last = self.layers[-1]\n        for name in self.names:\n            name.scale(y)\n"
        "        return last.scale(y)\n"
    )
    monkeypatch.chdir(tmp_path)
    code, lines = check(capsys, "--no-cache", ".")
    assert [" ".join(line.split()[:2]) for line in lines] == [
        "model.py:7:20: ONX501", "model.py:10:16: ONX102"]


def test_a_method_set_as_an_instance_s_forward_is_an_entry(tmp_path, monkeypatch, capsys):
    # diffusers' safety checker export (tests/realworld/sd_safety_checker_forward_onnx_bool_mask_black_image_batch.py):
    # the class has `forward_onnx` and no forward, and the factory sets `checker.forward = checker.forward_onnx`;
    # a method of the same name in a class that is no module is not one; NeMo's `_prepare_for_export`
    # sets `self.forward = self.forward_for_export` in a method of the class itself
    (tmp_path / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Checker(nn.Module):\n    def forward_onnx(self, x):\n        return x * int(x.sum().item())\n\n\n"
        "class Plain:\n    def forward_onnx(self, x):\n        return x.numpy()\n\n\n"
        "def make_model():\n    checker = Checker()\n    checker.forward = checker.forward_onnx\n    return checker\n\n\n"
        "class Encoder(nn.Module):\n    def forward(self, x):\n        return x\n\n"
        "    def forward_for_export(self, x):\n        return x * int(x.sum().item())\n\n"
        "    def _prepare_for_export(self):\n        if True:\n            self.forward = self.forward_for_export\n"
    )
    monkeypatch.chdir(tmp_path)
    code, lines = check(capsys, "--no-cache", "--exporters", "dynamo,legacy", ".")
    assert [" ".join(line.split()[:2]) for line in lines] == ["model.py:7:24: ONX201", "model.py:26:24: ONX201"]
