"""The legacy-only operator rules follow the project's exporters, `--decompose` covers their ops
in a legacy export, and which call forms ONX518 reports. Split from
tests/test_decompositions_legacy.py (size)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from onnxfix.cli import main
from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile
from test_decompositions_legacy import ints

FIXTURE = Path(__file__).parent / "fixtures" / "ONX519" / "pyramid.py"


# ---- the rules follow the project's exporters --------------------------------------------------
FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("fixture, code, count", [("ONX518/legacy_silent.py", "ONX518", 7),
                                                  ("ONX517/legacy_math.py", "ONX517", 29)])
@pytest.mark.plumbing
def test_reported_only_when_the_project_targets_legacy(fixture, code, count, tmp_path, monkeypatch, capsys):
    """The catalog measures these ops failing in legacy only: a project configured for dynamo
    alone (`[tool.onnxfix] exporters`, the default) gets no finding; one targeting legacy does.
    Selecting only these rules for dynamo alone checks nothing: an error, not "All checks passed!"."""
    from onnxfix.cli import main

    (tmp_path / "model.py").write_text((FIXTURES / fixture).read_text())
    monkeypatch.chdir(tmp_path)
    for exporters, expected in (('["dynamo", "legacy"]', count), ('["legacy"]', count)):
        (tmp_path / "pyproject.toml").write_text(f"[tool.onnxfix]\nexporters = {exporters}\n")
        main(["model.py", "--select", "ONX517,ONX518", "-q"])
        lines = capsys.readouterr().out.splitlines()
        assert [line.split()[1] for line in lines if ": ONX5" in line] == [code] * expected, (exporters, lines)
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo"]\n')
    assert main(["model.py", "--select", "ONX5", "-q"]) == 0
    assert "ONX51" not in capsys.readouterr().out
    (tmp_path / "pyproject.toml").unlink()  # no config: dynamo only
    assert main(["model.py", "--select", "ONX517,ONX518", "-q"]) == 2
    assert capsys.readouterr() == (
        "", "error: nothing to check: no selected rule reports for exporter dynamo (select: ONX517, ONX518; ignore: none)\n"
    )


class _Operators(torch.nn.Module):
    def forward(self, a, b):
        return a // b, a >> 2, torch.nn.functional.softplus(a.float(), threshold=1.0)


@pytest.mark.plumbing
def test_decompose_covers_the_operators_in_a_legacy_export(tmp_path):
    """(d) for `//` and `>>`: `decomposition_context` intercepts Tensor.__floordiv__ and
    __rshift__, so the legacy export of an unedited model matches eager in onnxruntime on other
    values and another batch size (without it, legacy is off by one on negative values)."""
    import warnings

    from onnxfix.exporter import comparison, verify
    from onnxfix.exporter.decompose import decomposition_context

    model = _Operators().eval()

    def args(seed, batch):
        return ints(batch, 7, lo=-60, hi=60, seed=seed), ints(batch, 7, lo=1, hi=5, seed=seed + 1) * torch.tensor([1, -1, 1, -1, 1, -1, 1])

    path, names = tmp_path / "m.onnx", ["a", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with decomposition_context(["floor_divide", "bitwise_right_shift", "softplus"]) as mode:
            verify.export_model(model, args(0, 2), "legacy", path, {0: {0: "batch"}, 1: {0: "batch"}})
    assert mode.used == {"floor_divide": 1, "bitwise_right_shift": 1, "softplus": 1}
    for seed, batch in ((1, 2), (2, 3)):
        probe = args(seed, batch)
        for want, got in zip(verify.eager(model, probe), comparison.run_onnx(path, probe, names), strict=True):
            assert torch.equal(torch.from_numpy(got), want) if not want.is_floating_point() else \
                torch.allclose(torch.from_numpy(got), want, rtol=1e-6, atol=1e-6)


# ---- which call forms ONX518 reports ------------------------------------------------------------
SNIPPET = """\
import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, t, n: int):
        a = F.softplus(x, 2.0, 1.0)
        b = F.softplus(x, beta=2.0)
        c = F.softplus(x, threshold=25)
        d = F.softplus(x, threshold=t)
        e = x.size(0) // 2 + n // 3 + (n >> 1)
        f = x // 4 + (x.long() >> 2)
        g = x.index_put((t,), x, accumulate=True) + x.index_put((t,), x) + x.index_put((t,), x, accumulate=False)
        h = F.embedding(t, x, None, 2.0) + F.embedding(t, x)
        return a, b, c, d, e, f, g, h
"""


@pytest.mark.plumbing
def test_onx518_reports_the_wrong_variants_only(tmp_path):
    from fixture_runner import settings
    from onnxfix.patterns import all_rules
    from onnxfix.rewriter.engine import RuleSet, check_text
    from onnxfix.rewriter.source import SourceFile

    path = tmp_path / "m.py"
    path.write_text(SNIPPET)
    source = SourceFile.read(path)
    findings = check_text(source.text, source, "m.py", settings(), RuleSet([r for r in all_rules() if r.code == "ONX518"]))
    # softplus with threshold 1.0 (positional) and an unknown threshold, not beta alone nor a
    # threshold >= 20; tensor // and >> (not on ints); index_put with accumulate=True only;
    # embedding with a positional max_norm (reported without a fix)
    assert sorted(f.line for f in findings) == [7, 10, 12, 12, 13, 14], [(f.line, f.message[:40]) for f in findings]
    assert [f.fix is None for f in findings if f.line == 14] == [True]


# ---- ONX519 (structural) reports only when the project targets legacy ---------------------------------------
def _codes(exporters):
    source = SourceFile.read(FIXTURE)
    findings = check_text(source.text, source, FIXTURE.name, Settings(exporters=frozenset(exporters)), RuleSet(list(all_rules())))
    return [f.code for f in findings]


def test_onx519_only_when_targeting_legacy():
    assert _codes({"dynamo"}) == []
    assert _codes({"legacy"}) == ["ONX519"] * 5
    assert _codes({"dynamo", "legacy"}) == ["ONX519"] * 5


@pytest.mark.plumbing
def test_cli_default_dynamo_config_has_no_onx519(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no [tool.onnxfix]: exporters = ["dynamo"]
    (tmp_path / "model.py").write_text(FIXTURE.read_text())
    assert main(["model.py", "-q"]) == 0
    assert "ONX519" not in capsys.readouterr().out
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    assert main(["model.py", "-q"]) == 1
    assert capsys.readouterr().out.count("ONX519") == 5


@pytest.mark.parametrize("call, reported", [
    ("F.adaptive_avg_pool2d(x, 1)", False),
    ("F.adaptive_avg_pool2d(x, (1, None))", True),  # None (kept): legacy refuses it with a dynamic size (measured)
    ("F.adaptive_avg_pool2d(x, (3, 3))", True),
    ("F.adaptive_avg_pool2d(x, self.size)", True),
    ("F.adaptive_avg_pool1d(x, output_size=1)", False),
    ("F.interpolate(x, size=(3, 3), mode='area')", True),
    ("F.interpolate(x, None, 0.5, 'area')", True),
    ("F.interpolate(x, scale_factor=2, mode='nearest-exact')", True),
    ("F.interpolate(x, scale_factor=2)", False),
    ("F.interpolate(x, scale_factor=2, mode=self.mode)", False),
    ("F.interpolate(x, scale_factor=0.5, mode='bilinear', antialias=True)", True),
    ("F.interpolate(x, None, 0.5, 'bicubic', False, None, True)", True),
    ("F.interpolate(x, scale_factor=0.5, mode='bilinear', align_corners=True, antialias=True)", True),
    ("F.conv1d(x, w, padding='same', dilation=2)", True),
    ("F.conv1d(x, w, None, 1, 'same', 3)", True),
    ("F.conv1d(x, w, padding='same')", False),
    ("F.conv1d(x, w, padding='same', dilation=1)", False),
    ("F.conv1d(x, w, padding=2, dilation=2)", False),
])
@pytest.mark.plumbing
def test_which_calls_onx519_reports(call, reported):
    text = f"import torch.nn.functional as F\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, w):\n        return {call}\n"
    source = SourceFile.from_bytes(Path("m.py"), text.encode("utf-8"))
    findings = check_text(text, source, "m.py", Settings(exporters=frozenset({"legacy"})), RuleSet(list(all_rules())))
    assert ("ONX519" in [f.code for f in findings]) is reported
