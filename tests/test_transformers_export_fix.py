"""`onnxfix export FILE:factory --fix` on real transformers architectures whose export fails in
transformers' own code (site-packages: no source fix of the user's file reaches it). The run names
the failing operator, and `--fix` exports once more with onnxfix's decomposition of it, eager
PyTorch untouched: PhiMoE and Qwen3-VL-MoE (the `transformers.grouped_mm_fallback` custom op of
their experts) and Llama 4 (complex RoPE: `torch.polar`, `view_as_complex`, a complex product)."""

from __future__ import annotations

import pytest

from export_cli import MODELS, cli_json

pytestmark = [pytest.mark.transformers, pytest.mark.usefixtures("in_repo")]
USER_FILE = MODELS / "transformers_user.py"


@pytest.mark.parametrize(("factory", "decomposition"), [
    ("make_phimoe", "grouped_mm_fallback"),
    ("make_qwen3_vl_moe", "grouped_mm_fallback"),
    ("make_llama4", "complex_pairs"),
])
def test_fix_exports_a_transformers_model_through_the_decomposition_the_run_named(capsys, factory, decomposition):
    original = USER_FILE.read_text()
    code, document = cli_json([f"{USER_FILE}:{factory}", "--exporter", "dynamo", "--fix"], capsys)
    (target,) = document["targets"]
    assert [r["verdict"] for r in target["results"]] == ["EXPORT-FAILS"]
    assert target["decompose_hint"] == [decomposition]
    fix = target["fix"]
    assert (fix["decompositions"], fix["fixes_applied"]) == ([decomposition], 0)
    assert [r["verdict"] for r in fix["results"]] == ["OK"]
    assert code == 0
    assert USER_FILE.read_text() == original
