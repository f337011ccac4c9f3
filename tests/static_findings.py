"""The findings of every rule on a small model text, as (code, line, fix safety): for tests of
how rules read spellings and arguments (tests/test_operator_spellings.py, test_argument_values.py)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, check_text
from onnxfix.rewriter.source import SourceFile


def findings(tmp_path: Path, code: str) -> list[tuple[str, int, bool | None]]:
    """(code, line, True safe / False unsafe / None no fix) for each finding, both exporters."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(code))
    source = SourceFile.read(path)
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}))
    return [(f.code, f.line, None if f.fix is None else f.fix.safe)
            for f in check_text(source.text, source, path.name, settings, RuleSet(list(all_rules())))]
