"""The control-flow/view examples: exact report and fixes, and the three proofs.

masked_attention: every finding has a fix; after `--write --unsafe-fixes` the model exports
under both exporters and matches eager on other values and sizes.
length_regulator: the output length depends on predicted durations (data). The guard, the
accumulation loop and the per-phoneme repeat loop (-> `torch.repeat_interleave`) are fixed; the
original fails in both exporters and the rewritten model exports under both and matches eager on
other values (other output lengths) and other phoneme counts. The per-utterance comprehensions
stay reported without a fix: the example exports its batch as a static dimension.
"""

from pathlib import Path

import pytest
import torch

from helper_bodies import collapse
from example_proofs import EXAMPLES, describe, eager_outputs, export_verdicts, identical, rewrite_copy
from onnxfix.config import Settings
from onnxfix.output import text_line
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile

EXPECTED_DIR = Path(__file__).parent / "examples_expected"
NAMES = ("masked_attention", "length_regulator")


def _report(path: Path) -> str:
    source = SourceFile.read(path)
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}))
    findings = check_text(source.text, source, path.name, settings, RuleSet(list(all_rules())))
    return "".join(text_line(f, unsafe_fixes=False) + "\n" for f in findings)


@pytest.mark.parametrize("name", NAMES)
def test_report_and_fix_are_exact(name, tmp_path):
    original = EXAMPLES / f"{name}.py"
    assert _report(original) == (EXPECTED_DIR / f"{name}.report").read_text(encoding="utf-8")
    rewritten = rewrite_copy(original, tmp_path, unsafe=True)
    assert collapse(rewritten.read_text(encoding="utf-8")) == (EXPECTED_DIR / f"{name}.fixed.py").read_text(encoding="utf-8")
    left = _report(rewritten)
    if name == "masked_attention":
        assert left == ""
    else:  # only the comprehensions over the (static) batch stay, reported without a fix (one the eager
        # and legacy side of a torch.vmap fix)
        assert [line.split(": ", 1)[1].split(" ", 1)[0] for line in left.splitlines()] == ["ONX603"] * 2
        assert all("comprehension over `range(x.shape[0])`" in line for line in left.splitlines())


def test_masked_attention_eager_outputs_identical(tmp_path):
    original = EXAMPLES / "masked_attention.py"
    assert identical(eager_outputs(original), eager_outputs(rewrite_copy(original, tmp_path, unsafe=True)))


def test_length_regulator_eager_outputs_equal_up_to_summation_order(tmp_path):
    # ONX603's fix is unsafe because `.sum(0)` adds in another order than the loop: the
    # outputs agree to float32 rounding, not bit for bit (measured: 1.2e-07 on one probe).
    original = EXAMPLES / "length_regulator.py"
    before, after = eager_outputs(original), eager_outputs(rewrite_copy(original, tmp_path, unsafe=True))
    assert len(before) == len(after)
    for x, y in zip(before, after):
        assert all(torch.allclose(s, t, rtol=1e-6, atol=1e-6) for s, t in zip(x, y))


def assert_rewrite_exports_everywhere(original: Path, tmp_path: Path) -> None:
    """After `--write --unsafe-fixes`: OK under both exporters on every probe, the user's other
    values and sizes and the generated ones included."""
    after = export_verdicts(rewrite_copy(original, tmp_path, unsafe=True))
    assert {e: v.verdict for e, v in after.items()} == {"dynamo": "OK", "legacy": "OK"}, describe(after)
    for verdict in after.values():
        names = [p.probe for p in verdict.probes]
        assert {"probe 1 (user)", "probe 2 (user)", "generated (dynamic dims +3)"} <= set(names)
        assert all(p.ok and not p.note.startswith("skipped") for p in verdict.probes), verdict.probes


def test_masked_attention_original_fails_and_rewrite_exports(tmp_path):
    original = EXAMPLES / "masked_attention.py"
    before = export_verdicts(original)
    assert {e: v.verdict for e, v in before.items()} == {"dynamo": "EXPORT-FAILS", "legacy": "SILENTLY-WRONG"}, describe(before)
    assert "GuardOnDataDependentSymNode" in before["dynamo"].error
    assert before["legacy"].failing_probe == "export inputs"  # the write through the view is lost
    assert_rewrite_exports_everywhere(original, tmp_path)


def test_length_regulator_original_fails_and_rewrite_exports(tmp_path):
    original = EXAMPLES / "length_regulator.py"
    before = export_verdicts(original)
    assert {e: v.verdict for e, v in before.items()} == {"dynamo": "EXPORT-FAILS", "legacy": "SILENTLY-WRONG"}, describe(before)
    # dynamo stops at the data-dependent repeat count; legacy keeps the export-time frame count
    assert "GuardOnDataDependentSymNode" in before["dynamo"].error
    assert any("shape" in p.note for p in before["legacy"].probes)
    assert_rewrite_exports_everywhere(original, tmp_path)
