"""torch.nn layers are another spelling of their functional op (patterns/operators/module_calls.py):
`self.pool(x)` with `self.pool = nn.AdaptiveAvgPool2d(s)` is matched statically (fixture
ONX519/module_layers), a module held in a loop variable through a recorded run's evidence.
The layer table is derived from torch's own source (bench/nn_module_forwards.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from onnxfix.exporter import plan
from onnxfix.exporter.evidence_worker import record
from onnxfix.exporter.session import FIX_TEMPORARY, NoProgress, run_target
from onnxfix.rewriter.runner import run

REPO = Path(__file__).resolve().parent.parent
MODEL = "tests/evidence_models/module_local.py"
FIXED_LINE = "levels.append(_onnx_adaptive_avg_pool2d(x, pool.output_size).flatten(1))"

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def findings(folder: str | None) -> list[tuple]:
    result = run([Path(MODEL)], "check", use_cache=False, exporters=frozenset({"dynamo", "legacy"}), evidence_dir=folder)
    return [(f.code, f.line, f.fix.applicability if f.fix else None) for r in result.files for f in r.findings]


def test_layer_table_is_read_from_torch_source():
    layers = json.loads((REPO / "onnxfix" / "data" / "nn_module_forwards.json").read_text())["layers"]
    assert layers["AdaptiveAvgPool2d"] == {"function": "torch.nn.functional.adaptive_avg_pool2d",
                                           "args": ["input", "self.output_size"], "keywords": {}, "init": ["output_size"]}
    assert layers["Upsample"]["args"][:3] == ["input", "self.size", "self.scale_factor"]
    assert len(layers) >= 40


def test_a_loop_variable_layer_is_matched_through_evidence(tmp_path):
    assert findings(None) == []
    record(f"{MODEL}:PyramidLayers", f"{MODEL}:example_inputs", tmp_path)
    assert findings(str(tmp_path)) == [("ONX519", 18, "safe")]


def test_export_fix_rewrites_the_layer_call_and_both_exporters_are_ok():
    target = plan.make_target(f"{MODEL}:PyramidLayers", exporters=("dynamo", "legacy"))
    result = run_target(target, NoProgress(), FIX_TEMPORARY, False)
    assert [r.verdict.verdict for r in result.results] == ["OK", "EXPORT-FAILS"]
    outcome = result.fix
    assert f"+            {FIXED_LINE}" in outcome.diff.splitlines()
    assert [(r.verdict.exporter, r.verdict.verdict) for r in outcome.results] == [("dynamo", "OK"), ("legacy", "OK")]
    assert all(p.ok for r in outcome.results for p in r.verdict.probes)
