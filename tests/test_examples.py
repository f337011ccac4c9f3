"""The bundled examples: exact report and fixes, and the three proofs.

For each example: the original fails or exports a wrong model (per exporter, as measured on
torch 2.13), `--write` keeps eager outputs bit-identical, and the rewritten model exports under
both exporters and matches eager in onnxruntime on other values and other sizes.
"""

from pathlib import Path

import pytest

from helper_bodies import collapse
from example_proofs import EXAMPLES, describe, eager_outputs, export_verdicts, identical, rewrite_copy
from onnxfix.config import Settings
from onnxfix.output import text_line
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile

EXPECTED_DIR = Path(__file__).parent / "examples_expected"

# example -> (needs --unsafe-fixes, verdicts of the ORIGINAL per exporter)
# dynamo handles NumPy only through its strict (TorchDynamo) fallback, and sizes/.item()
# symbolically; it crashes (SIGSEGV) on `x.data`. The legacy exporter bakes values in.
EXAMPLE_CASES = {
    "numpy_positional": (False, {"dynamo": "OK", "legacy": "SILENTLY-WRONG"}),
    "chunk_pooling": (True, {"dynamo": "OK", "legacy": "SILENTLY-WRONG"}),
    "weight_norm": (True, {"dynamo": "CRASH", "legacy": "SILENTLY-WRONG"}),
    "padded_attention": (False, {"dynamo": "OK", "legacy": "EXPORT-FAILS"}),
    # dynamo exports `int(w / f)` as the export-time stride and `int(h * w)` as the export-time
    # cell count; legacy records every Python number as a constant. The baked cell count makes
    # onnxruntime's Reshape fail on another feature size (before that, the stride was wrong).
    "box_decoder": (False, {"dynamo": "ORT-FAILS", "legacy": "ORT-FAILS"}),
    "interpolated_positions": (True, {"dynamo": "OK", "legacy": "ORT-FAILS"}),
    "pooling_head": (True, {"dynamo": "EXPORT-FAILS", "legacy": "ORT-FAILS"}),
    # median, searchsorted and stable argsort have no translation in either exporter (ONX5xx);
    # their helpers are exact, so the rewrite stays bit-identical.
    "feature_bucketizer": (False, {"dynamo": "EXPORT-FAILS", "legacy": "EXPORT-FAILS"}),
}


def _report(path: Path) -> str:
    source = SourceFile.read(path)
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}))
    findings = check_text(source.text, source, path.name, settings, RuleSet(list(all_rules())))
    return "".join(text_line(f, unsafe_fixes=False) + "\n" for f in findings)


@pytest.mark.parametrize("name", sorted(EXAMPLE_CASES))
def test_report_and_fix_are_exact(name, tmp_path):
    unsafe, _ = EXAMPLE_CASES[name]
    original = EXAMPLES / f"{name}.py"
    assert _report(original) == (EXPECTED_DIR / f"{name}.report").read_text(encoding="utf-8")
    rewritten = rewrite_copy(original, tmp_path, unsafe)
    assert collapse(rewritten.read_text(encoding="utf-8")) == (EXPECTED_DIR / f"{name}.fixed.py").read_text(encoding="utf-8")
    assert _report(rewritten) == ""  # nothing left to fix


@pytest.mark.parametrize("name", sorted(EXAMPLE_CASES))
def test_rewrite_keeps_eager_outputs_identical(name, tmp_path):
    unsafe, _ = EXAMPLE_CASES[name]
    original = EXAMPLES / f"{name}.py"
    rewritten = rewrite_copy(original, tmp_path, unsafe)
    assert identical(eager_outputs(original), eager_outputs(rewritten))


@pytest.mark.parametrize("name", sorted(EXAMPLE_CASES))
def test_original_fails_and_rewrite_exports_correctly(name, tmp_path):
    unsafe, expected_original = EXAMPLE_CASES[name]
    original = EXAMPLES / f"{name}.py"
    before = export_verdicts(original)
    assert {e: v.verdict for e, v in before.items()} == expected_original, describe(before)
    for verdict in before.values():  # an ORT-FAILS verdict carries onnxruntime's error, shapes included
        if verdict.verdict == "ORT-FAILS":
            assert verdict.error.startswith("onnxruntime: ") and "onnxruntime_src" not in verdict.error, verdict.error
            assert verdict.error.endswith(f"(on {verdict.failing_probe})"), verdict.error
    after = export_verdicts(rewrite_copy(original, tmp_path, unsafe))
    assert {e: v.verdict for e, v in after.items()} == {"dynamo": "OK", "legacy": "OK"}, describe(after)
    for verdict in after.values():
        names = [p.probe for p in verdict.probes]
        assert "probe 2 (user)" in names and "generated (dynamic dims +3)" in names  # other sizes ran
        assert all(p.ok and not p.note.startswith("skipped") for p in verdict.probes), verdict.probes
