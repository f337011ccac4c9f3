"""Every rule's fixtures: exact report, exact fixed source, idempotent fixing."""

from pathlib import Path

import pytest

from fixture_runner import FIXTURES, expected_paths, fixed, fixture_inputs, report
from helper_bodies import expand
from onnxfix.patterns import all_rules

CASES = fixture_inputs()


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("path", CASES, ids=_id)
def test_report_is_exact(path):
    report_path, _, _ = expected_paths(path)
    assert report(path) == report_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", CASES, ids=_id)
def test_fixes_are_exact_and_idempotent(path, tmp_path):
    _, fixed_path, unsafe_path = expected_paths(path)
    original = path.read_text(encoding="utf-8")
    expected_safe = fixed_path.read_text(encoding="utf-8") if fixed_path.exists() else original
    expected_unsafe = unsafe_path.read_text(encoding="utf-8") if unsafe_path.exists() else expected_safe
    assert fixed(path, unsafe=False) == expected_safe
    assert fixed(path, unsafe=True) == expected_unsafe
    again = tmp_path / path.name
    again.write_text(expand(expected_unsafe), encoding="utf-8")
    assert fixed(again, unsafe=True) == expected_unsafe  # a second --write changes nothing


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_a_fixture_that_reports_it(rule):
    folder = FIXTURES / rule.code
    assert folder.is_dir(), f"no fixtures for {rule.code} in {folder}"
    reports = "".join(p.read_text(encoding="utf-8") for p in folder.glob("*.report"))
    assert f": {rule.code}" in reports, f"no fixture of {rule.code} reports {rule.code}"


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.triggers], ids=lambda r: r.code)
def test_every_file_a_rule_reports_in_holds_one_of_its_triggers(rule):
    """The pre-filter (rewriter.triggers.Triggers) skips files holding none of the selected rules'
    triggers: a fixture reporting the rule in a file its triggers miss would be a lost finding."""
    from onnxfix.rewriter.triggers import Triggers

    triggers = Triggers(list(rule.triggers))
    for report_path in FIXTURES.rglob("*.report"):
        if f": {rule.code}" in report_path.read_text(encoding="utf-8"):
            source = report_path.with_suffix(".py")
            assert triggers.found_in(source.read_bytes()), f"{rule.code} reports in {source} but no trigger is there"


def test_per_file_rule_filter_asks_the_same_question_as_the_file_pre_filter():
    """RuleSet.triggered_in reads a file's words once (triggers.words_of) and asks each rule;
    the pre-filter searches each trigger: on every fixture and example they must agree, rule by
    rule, and a file keeps exactly the rules whose triggers it holds (plus those without any)."""
    from onnxfix.rewriter.engine import RuleSet
    from onnxfix.rewriter.triggers import Triggers, words_of

    rules = list(all_rules())
    ruleset = RuleSet(rules)
    sources = [*FIXTURES.rglob("*.py"), *(FIXTURES.parent.parent / "examples").rglob("*.py")]
    narrowed_somewhere = False
    for path in sources:
        raw = path.read_bytes()
        words = words_of(raw)
        kept = {r.code for r in ruleset.triggered_in(raw.decode("utf-8")).rules}
        for rule in rules:
            present = not rule.triggers or Triggers(list(rule.triggers)).found_in(raw)
            assert (not rule.triggers or Triggers(list(rule.triggers)).found_among(words, raw)) == present, (path, rule.code)
            assert (rule.code in kept) == present, (path, rule.code)
        narrowed_somewhere |= len(kept) < len(rules)
    assert narrowed_somewhere
