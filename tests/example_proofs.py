"""The three proofs for a model file: rewrite a copy, compare eager outputs, export and verify.

Used by the example tests; imports torch (only tests and `onnxfix export` do).
"""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

from onnxfix.config import Settings
from onnxfix.exporter.isolate import ExportRequest, run_isolated
from onnxfix.exporter.targets import load_module
from onnxfix.exporter.verify import Verdict, flatten
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, process_file

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
BOTH = ("dynamo", "legacy")


def rewrite_copy(model_file: Path, dest: Path, unsafe: bool) -> Path:
    """Copy ``model_file`` into ``dest`` and apply onnxfix's fixes there (both exporters
    targeted), the way `onnxfix --write [--unsafe-fixes]` does."""
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / model_file.name
    shutil.copyfile(model_file, target)
    settings = Settings(exporters=frozenset(BOTH), unsafe_fixes=unsafe)
    result = process_file(target, target.name, settings, RuleSet(list(all_rules())), "write")
    assert result.error is None, result.error
    return target


def eager_outputs(model_file: Path) -> list[list[torch.Tensor]]:
    """Outputs of the file's make_model() on its example and probe inputs."""
    module = load_module(model_file)
    model = module.make_model().eval()
    outputs = []
    with torch.no_grad():
        for args in [module.example_inputs(), *module.probe_inputs()]:
            outputs.append(flatten(model(*args)))
    return outputs


def identical(a: list[list[torch.Tensor]], b: list[list[torch.Tensor]]) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(torch.equal(s, t) for s, t in zip(x, y)) for x, y in zip(a, b)
    )


def export_verdicts(model_file: Path, exporters=BOTH) -> dict[str, Verdict]:
    """Export under each exporter (in child processes, two at a time) and verify in
    onnxruntime on the export inputs, the file's probe inputs and generated probes."""
    dynamic = getattr(load_module(model_file), "DYNAMIC", {})
    spec = str(model_file)

    def one(exporter: str) -> Verdict:
        request = ExportRequest(
            model=f"{spec}:make_model", inputs=f"{spec}:example_inputs",
            probes=f"{spec}:probe_inputs", exporter=exporter, dynamic=dynamic,
        )
        return run_isolated(request, timeout=900)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(exporters, pool.map(one, exporters)))


def describe(verdicts: dict[str, Verdict]) -> str:
    return "; ".join(f"{e}: {v.verdict} {v.failing_probe} {v.error[:300]}" for e, v in verdicts.items())
