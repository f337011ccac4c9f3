"""Run-time evidence on every line (issue 26): a function's first statement, lines inside a
multi-line statement, comprehensions, generator expressions, lambdas and nested functions,
and evidence that outlives the fix round that first edits the file.

Cheap: each test records one eager run (no export) and asks the static rules with and
without its evidence. Models: tests/evidence_models/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from onnxfix.exporter.evidence_worker import record
from onnxfix.rewriter import evidence
from onnxfix.rewriter.engine import fix_key
from onnxfix.rewriter.runner import run

REPO = Path(__file__).resolve().parent.parent
MODELS = "tests/evidence_models"
BOTH = frozenset({"dynamo", "legacy"})


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _run(path: str, folder: str | None, mode: str = "check", keys: frozenset[str] | None = None):
    result = run([Path(path)], mode, use_cache=False, exporters=BOTH, evidence_dir=folder, fix_only=keys)
    (file,) = result.files
    return file


def _findings(file) -> list[tuple]:
    return [(f.code, f.line, f.col, f.fix.applicability if f.fix else None) for f in file.findings]


def test_data_gate_first_statement_is_proven_and_stays_proven_after_a_fix(tmp_path):
    """The torch docs' pitfall over two lines (issue 26): `x.data` in forward's first statement.
    The evidence proves it; when the fix loop keeps the fix of line 17 first, the text changes
    and has no evidence of its own, yet line 16's fix stays safe, and both keys together are
    applied from the recorded text."""
    path = f"{MODELS}/data_gate.py"
    text = Path(path).read_text()
    assert _findings(_run(path, None)) == [("ONX301", 16, 30, "unsafe"), ("ONX301", 17, 27, "safe")]
    assert record(f"{path}:make_model", f"{path}:example_inputs", tmp_path) == {"files": 1, "functions": 1}
    forward = evidence.load(str(tmp_path), text).functions[("forward", 15)]
    tensor = evidence.Value("tensor", "float32", 2, "cpu")
    assert (forward.calls, sorted(forward.lines)) == (1, [16, 17])
    assert forward.names["x"] == forward.names["gate"] == {tensor}
    assert forward.returns == {17: frozenset({tensor})}
    start = _run(path, str(tmp_path), "diff", frozenset())
    assert _findings(start) == [("ONX301", 16, 30, "safe"), ("ONX301", 17, 27, "safe")]
    first, second = (fix_key(f, text) for f in start.findings)
    assert (first, second) == ("ONX301:x.data", "ONX301:self.scale.data")
    after_one = _run(path, str(tmp_path), "diff", frozenset({second}))
    assert after_one.fixed_text.splitlines()[15:17] == [
        "        gate = torch.sigmoid(x.data)", "        return x * gate + self.scale.detach()"]
    assert _findings(after_one) == [("ONX301", 16, 30, "safe")]
    both = _run(path, str(tmp_path), "diff", frozenset({first, second}))
    assert both.findings == [] and both.fixes_applied == 2
    assert both.fixed_text.splitlines()[15:17] == [
        "        gate = torch.sigmoid(x.detach())", "        return x * gate + self.scale.detach()"]
    # without evidence the kept fix leaves line 16 unsafe, as static analysis must
    assert _findings(_run(path, None, "diff", frozenset({second}))) == [("ONX301", 16, 30, "unsafe")]



def test_a_lambda_parameter_or_comprehension_variable_is_not_the_functions_name():
    """Statically too: `t = torch.zeros(3)` says nothing of the `t` of `[t.data for t in ps]` or
    of `lambda t: t.data`."""
    path = f"{MODELS}/shadow_static.py"
    assert _findings(_run(path, None)) == [("ONX301", 10, 14, "unsafe"), ("ONX301", 11, 23, "unsafe"),
                                           ("ONX301", 12, 16, "safe")]
