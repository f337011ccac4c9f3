"""Reach by evidence (rewriter/recorded_reach.py) and sampled outputs (exporter/verify.py).

A function that the static reach cannot follow (a method of an object another method returned)
but a recorded eager forward run executed is export-time code for the rules under
`onnxfix export --fix`; and an output that eager and onnxruntime each sample anew on every call
is not compared value for value, while one that only eager samples (a frozen branch) still fails.
Model: tests/evidence_models/recorded_reach.py (Stable-Baselines3's deterministic flag).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from onnxfix.exporter import plan
from onnxfix.exporter.evidence_worker import record
from onnxfix.exporter.session import FIX_TEMPORARY, NoProgress, run_target
from onnxfix.exporter.targets import load_module
from onnxfix.exporter.verify import RANDOM_NOTE
from onnxfix.rewriter.runner import run

REPO = Path(__file__).resolve().parent.parent
MODEL = "tests/evidence_models/recorded_reach.py"
BEFORE = """        if deterministic:
            return self.mean
        return self.sample()
"""
AFTER = """        return torch.where(deterministic, self.mean, self.sample())
"""

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def _findings(folder: str | None) -> list[tuple]:
    result = run([Path(MODEL)], "check", use_cache=False, exporters=frozenset({"dynamo", "legacy"}), evidence_dir=folder)
    return [(f.code, f.line, f.fix.applicability if f.fix else None, f.full_message()) for r in result.files for f in r.findings]


def test_a_function_only_the_recorded_run_reaches_is_linted(tmp_path):
    assert _findings(None) == []
    assert record(f"{MODEL}:Policy", f"{MODEL}:example_inputs", tmp_path) == {"files": 1, "functions": 4}
    # `spread` ran too, but only under `if not torch.onnx.is_in_onnx_export():`: no exporter runs it
    ((code, line, safety, message),) = _findings(str(tmp_path))
    assert (code, line, safety) == ("ONX601", 21, "unsafe")
    assert message.endswith("(reached from the recorded forward run)")


def test_export_fix_selects_with_where_and_sampled_outputs_are_not_compared():
    target = plan.make_target(f"{MODEL}:Policy", exporters=("dynamo", "legacy"))
    result = run_target(target, NoProgress(), FIX_TEMPORARY, True)
    before = {r.verdict.exporter: r.verdict for r in result.results}
    # the legacy trace freezes `return self.mean`: onnxruntime gives the mean where eager samples
    assert (before["dynamo"].verdict, before["legacy"].verdict) == ("EXPORT-FAILS", "SILENTLY-WRONG")
    outcome = result.fix
    assert outcome.error == "" and outcome.evidence["files"] == 1
    assert BEFORE.replace("        ", "-        ") in outcome.diff and "+" + AFTER.strip("\n") in outcome.diff
    for fixed in outcome.results:
        verdict = fixed.verdict
        assert verdict.verdict == "OK", (verdict.exporter, verdict.error)
        sampled = [p for p in verdict.probes if any(o.note == RANDOM_NOTE for o in p.outputs)]
        assert sampled and all(p.probe.startswith("generated") for p in sampled)


def test_the_where_form_computes_what_the_branch_did(tmp_path):
    original = load_module(REPO / MODEL)
    copy = tmp_path / "fixed.py"
    copy.write_text((REPO / MODEL).read_text().replace(BEFORE, AFTER))
    fixed = load_module(copy)
    for flag in (True, False):
        for seed in range(3):
            torch.manual_seed(seed)
            obs = torch.randn(3, 6)
            torch.manual_seed(seed)
            before = original.Policy().eval()
            torch.manual_seed(seed)
            after = fixed.Policy().eval()
            torch.manual_seed(seed + 10)
            expected = before(obs, torch.tensor(flag))
            torch.manual_seed(seed + 10)
            assert torch.equal(after(obs, torch.tensor(flag)), expected)


class _Runtime:
    """onnxruntime's stand-in: ``run`` computes ``outputs(x)`` anew on every call."""

    def __init__(self, outputs):
        self.outputs = outputs

    def run(self, args, names):
        return [self.outputs(args[0]).numpy()]


class _Sampling(torch.nn.Module):
    def forward(self, x):
        return x * 2 + torch.randn(x.shape[0], 3)


@pytest.mark.parametrize("onnx, compared", [
    (lambda x: x * 2 + torch.randn(x.shape[0], 3), False),  # samples as eager does: not compared
    (lambda x: x[:2] * 2 + torch.randn(2, 3), True),  # the batch frozen at the export size
    # a wrong deterministic part beside the noise (one within a few times the noise's spread passes)
    (lambda x: x * 2 + 100 + torch.randn(x.shape[0], 3), True),
    (lambda x: x * 2, True),  # only eager samples (the legacy trace froze a branch)
])
def test_only_outputs_both_sides_sample_alike_are_left_uncompared(onnx, compared):
    from onnxfix.exporter.result import OutputError
    from onnxfix.exporter.verify import Probe, _random_not_compared, eager

    model, x = _Sampling(), torch.randn(4, 3)
    runtime = _Runtime(onnx)
    expected, actual = eager(model, (x,)), runtime.run((x,), [])
    (output,) = _random_not_compared(model, runtime, Probe("p", (x,)), [], expected, actual,
                                     [OutputError(0, 1.0, 1.0, False, "differs")])
    assert (output.ok, output.note) == ((False, "differs") if compared else (True, RANDOM_NOTE))


class _TokenSampling(torch.nn.Module):
    """gpt-fast's sampling: the prompt's tokens, then one drawn by argmax(probs / Exp(1))."""

    def forward(self, tokens):
        probs = torch.full((1, 100_000), 1e-5)  # two draws alike once in 100,000 runs
        drawn = torch.argmax(probs / torch.empty_like(probs).exponential_(1), dim=-1, keepdim=True)
        return torch.cat([tokens, drawn], dim=1)


def _drawn(tokens):
    return torch.cat([tokens, torch.randint(0, 100_000, (1, 1))], dim=1)


@pytest.mark.parametrize("onnx, compared", [
    (_drawn, False),  # a token drawn as eager draws one: not compared
    (lambda tokens: _drawn(tokens + 1), True),  # the prompt's tokens wrong beside the drawn one
])
def test_a_sampled_token_is_left_uncompared_its_prompt_is_not(onnx, compared):
    from onnxfix.exporter.result import OutputError
    from onnxfix.exporter.verify import Probe, _random_not_compared, eager

    model, tokens = _TokenSampling(), torch.arange(5).view(1, 5)
    runtime = _Runtime(onnx)
    expected, actual = eager(model, (tokens,)), runtime.run((tokens,), [])
    (output,) = _random_not_compared(model, runtime, Probe("p", (tokens,)), [], expected, actual,
                                     [OutputError(0, 1.0, 1.0, False, "differs")])
    assert output.ok is not compared


@pytest.mark.parametrize("first, repeats, draws", [
    ([torch.tensor([1.5, 2.5])], True, 1),  # a float output repeated bit for bit: deterministic, drawn once
    ([torch.tensor([7, 3])], True, 4),  # an integer one repeated: a sampled token may repeat by chance
    ([torch.tensor([7, 3])], False, 1),  # it differs at once: sampled
])
def test_a_deterministic_failure_is_not_drawn_again(first, repeats, draws):
    """A failed output is drawn again only where it is integer and repeats: every deterministic
    float failure would otherwise cost three more eager calls and onnxruntime runs per probe."""
    from onnxfix.exporter.verify import _redrawn

    calls = []

    def draw():
        calls.append(1)
        return [first[0].clone() if repeats else first[0] + len(calls)]

    _redrawn(draw, first, [0], lambda v: v)
    assert len(calls) == draws
