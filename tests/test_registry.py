"""The catalog itself: unique codes, complete docs, README in sync."""

import re
from pathlib import Path

from readme_sections import README, RULES_BLOCK, operator_coverage, readme_numbers, rules_markdown

from onnxfix.patterns import all_rules


def test_codes_and_names_are_unique_and_well_formed():
    rules = all_rules()
    codes = [r.code for r in rules]
    names = [r.name for r in rules]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)
    for rule in rules:
        assert re.fullmatch(r"ONX[1-9]\d\d", rule.code), rule.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name), rule.name


def test_no_module_grows_past_500_lines():
    """A module holds one responsibility, in patterns/ one rule or one small family: past 500
    lines it is two. Held for every module of onnxfix/ (patterns/ kept it first)."""
    package = Path(__file__).resolve().parent.parent / "onnxfix"
    sizes = {str(f.relative_to(package)): len(f.read_text(encoding="utf-8").splitlines()) for f in package.rglob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 500} == {}


def test_every_rule_is_documented():
    for rule in all_rules():
        doc = rule.doc
        for section in ("what", "why", "example", "use_instead", "fix_safety"):
            assert getattr(doc, section).strip(), f"{rule.code}: empty {section}"
        assert rule.summary.strip()
        assert rule.fix_availability in ("always", "sometimes", "never")
        assert rule.exporters and set(rule.exporters) <= {"dynamo", "legacy"}
        for snippet in (doc.example, doc.use_instead):
            compile(__import__("textwrap").dedent(snippet), rule.code, "exec")  # examples are valid Python


def test_readme_rule_table_is_in_sync():
    block = RULES_BLOCK.search(README.read_text(encoding="utf-8"))
    assert block, "README lost its rules-table markers"
    assert block.group(2) == rules_markdown(), "README rule table is stale: run `python tests/update_docs.py`"


def test_readme_console_example_is_what_onnxfix_prints(monkeypatch, capsys):
    from onnxfix.cli import main

    text = README.read_text(encoding="utf-8")
    block = re.search(r"```console\n\$ onnxfix (.*?)\n(.*?)```", text, re.S)
    monkeypatch.chdir(README.parent)
    main(block.group(1).split())
    assert capsys.readouterr().out == block.group(2)


def test_readme_operator_coverage_numbers_are_the_catalogs():
    """README's operator paragraph is recomputed from the measured catalog and the registry of
    decompositions, so a re-probe or a new decomposition cannot leave it stale."""
    assert readme_numbers(README.read_text(encoding="utf-8")) == operator_coverage(), "run `python tests/update_docs.py`"
