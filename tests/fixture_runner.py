"""Run onnxfix on one rule fixture the way a user would, without a subprocess.

A fixture is tests/fixtures/<CODE>/<case>.py with beside it:
  <case>.report      the exact report lines (`onnxfix <case>.py`, both exporters targeted)
  <case>.fixed.py    the exact source after `--write` (absent: the file must stay unchanged)
  <case>.unsafe.py   the exact source after `--write --unsafe-fixes` (absent: same as .fixed.py)
  <case>.evidence.json  optional: what an `onnxfix export` run recorded of <case>.py (rewriter/
                     evidence.py's JSON), for the rules that read a run's evidence
Decomposition helpers appear in the .fixed.py/.unsafe.py files as one marker line each
(tests/helper_bodies.py): a changed helper re-snapshots no fixture.
`python tests/update_fixtures.py [CODE...]` rewrites these from the current output, for review.
"""

from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from pathlib import Path

from helper_bodies import collapse

from onnxfix.config import Settings
from onnxfix.output import text_line
from onnxfix.patterns import all_rules
from onnxfix.rewriter import evidence
from onnxfix.rewriter.engine import RuleSet, check_text, fix_text
from onnxfix.rewriter.source import SourceFile

FIXTURES = Path(__file__).parent / "fixtures"
BOTH = frozenset({"dynamo", "legacy"})


def fixture_inputs() -> list[Path]:
    return sorted(
        p for p in FIXTURES.glob("*/*.py") if not p.name.endswith((".fixed.py", ".unsafe.py"))
    )


def settings(unsafe: bool = False, evidence_dir: str | None = None) -> Settings:
    return Settings(exporters=BOTH, unsafe_fixes=unsafe, evidence_dir=evidence_dir)


def report(path: Path) -> str:
    source = SourceFile.read(path)
    with _evidence(path, source.text) as folder:
        findings = check_text(source.text, source, path.name, settings(evidence_dir=folder), RuleSet(list(all_rules())))
    return "".join(text_line(f, unsafe_fixes=False) + "\n" for f in findings)


def fixed(path: Path, unsafe: bool) -> str:
    source = SourceFile.read(path)
    with _evidence(path, source.text) as folder:
        text, _, _ = fix_text(source, path.name, settings(unsafe, folder), RuleSet(list(all_rules())))
    return collapse(text)


@contextmanager
def _evidence(path: Path, text: str):
    """An evidence folder holding <case>.evidence.json for this text (None without one)."""
    recorded = path.with_suffix(".evidence.json")
    if not recorded.exists():
        yield None
        return
    with tempfile.TemporaryDirectory() as folder:
        evidence.store(Path(folder), text, json.loads(recorded.read_text(encoding="utf-8")))
        yield folder


def expected_paths(path: Path) -> tuple[Path, Path, Path]:
    stem = path.with_suffix("")
    return (
        stem.with_suffix(".report"),
        stem.with_name(stem.name + ".fixed.py"),
        stem.with_name(stem.name + ".unsafe.py"),
    )
