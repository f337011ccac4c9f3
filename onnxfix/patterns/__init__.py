"""The catalog: every rule onnxfix knows, one module per pattern family.

Rule codes are ONXnnn, in families by hundreds:
  ONX1xx  NumPy and host round trips       (numpy_interop)
  ONX2xx  Tensors turned into Python values (scalars)
  ONX3xx  Aliasing and mutation             (tensor_data, views)
  ONX4xx  Shape arithmetic                  (shape_math)
  ONX5xx  Operators the exporters reject    (operators)
  ONX6xx  Control flow on tensor values     (control_flow)
  ONX7xx  Indexing (legacy exporter)        (indexing)
Adding a rule touches one module here (listed in FAMILIES) and its fixtures.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from onnxfix.rewriter.rule import Rule

FAMILIES = (
    "onnxfix.patterns.numpy_interop",
    "onnxfix.patterns.scalars",
    "onnxfix.patterns.tensor_data",
    "onnxfix.patterns.views",
    "onnxfix.patterns.shape_math",
    "onnxfix.patterns.operators",
    "onnxfix.patterns.control_flow",
    "onnxfix.patterns.indexing",
)


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    rules = []
    for family in FAMILIES:
        module = importlib.import_module(family)
        rules.extend(cls() for cls in module.RULES)
    return tuple(sorted(rules, key=lambda r: r.code))


def rule_by_code(code: str) -> Rule | None:
    code = code.upper()
    return next((r for r in all_rules() if r.code == code or r.name == code.lower()), None)
