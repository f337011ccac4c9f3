"""Rule contracts, Fixit-style: every rule's documented Example (`onnxfix rule CODE`) is reported
by that rule, and its "Use instead" is not. The example is placed in an nn.Module (a forward and
its methods) or, for module-level examples (export calls), at module level."""

from __future__ import annotations

import textwrap

import pytest

from onnxfix import api
from onnxfix.patterns import all_rules

PRELUDE = "import copy\nimport math\n\nimport numpy as np\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"
# rules that report only on what an `onnxfix export` run recorded: their fixtures carry the evidence
RULES = [r for r in all_rules() if not r.needs_run]


def module_source(snippet: str) -> str:
    snippet = textwrap.dedent(snippet).strip("\n") + "\n"
    if not snippet.lstrip().startswith(("def ", "@")):
        return PRELUDE + snippet  # module level: classes and export calls
    return PRELUDE + "class Model(nn.Module):\n" + textwrap.indent(snippet, "    ")


def codes_reported(tmp_path, snippet: str, rule) -> list[str]:
    path = tmp_path / "example.py"
    path.write_text(module_source(snippet), encoding="utf-8")
    result = api.check(path, exporters=list(rule.exporters), select=[rule.code])
    assert not result.errors, result.errors
    return [f.code for f in result.findings]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_the_documented_example_is_reported_and_its_replacement_is_clean(tmp_path, rule):
    assert rule.code in codes_reported(tmp_path, rule.doc.example, rule), (
        f"{rule.code}'s documented example is not reported by it:\n{module_source(rule.doc.example)}")
    assert rule.code not in codes_reported(tmp_path, rule.doc.use_instead, rule), (
        f"{rule.code}'s 'use instead' is still reported:\n{module_source(rule.doc.use_instead)}")
