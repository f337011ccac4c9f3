"""A function memoized on a tensor's shape (einops before 0.7, tests/export_models/
shape_cached_recipe.py): the dynamo export fails on the SymInt's hash, and exports through
caches_bypassed (exporter/cached_functions.py) to a model that matches eager on other sizes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

from onnxfix.exporter.probes import user_probes
from onnxfix.exporter.verify import verify

MODEL = Path(__file__).parent / "export_models" / "shape_cached_recipe.py"


def test_a_shape_cached_recipe_exports_through_the_uncached_function():
    spec = importlib.util.spec_from_file_location("shape_cached_recipe", MODEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args, probes = module.example_inputs(), user_probes([(torch.randn(3, 11, 3, 4),)])
    dynamic = {0: {0: "batch", 1: "points"}}
    before = verify(module.make_model, args, probes, "dynamo", dynamic)
    assert before.verdict == "EXPORT-FAILS" and "unhashable type" in before.error
    after = verify(module.make_model, args, probes, "dynamo", dynamic, decompose=["caches_bypassed"])
    assert after.verdict == "OK", after.error
    assert module._flat_shape.cache_info().currsize > 0  # the cache is back, eager filled it
