"""README sections computed from the catalog, so they are regenerated, never pasted:
`python tests/update_docs.py` rewrites them; tests/test_registry.py checks they are current."""

from __future__ import annotations

import re
from pathlib import Path

from onnxfix.output import rules_table
from onnxfix.patterns import all_rules

README = Path(__file__).resolve().parents[1] / "README.md"
RULES_BLOCK = re.compile(r"(<!-- rules-table:start[^>]*-->\n)(.*?)(<!-- rules-table:end -->)", re.S)


def rules_markdown() -> str:
    return rules_table(all_rules(), markdown=True).strip() + "\n"


def operator_coverage() -> dict[str, int]:
    """The numbers of README's operator paragraph, from the measured catalog and the registry."""
    from onnxfix import operator_catalog as catalog
    from onnxfix.decompositions import DECOMPOSITIONS

    failing = {"dynamo": set(), "legacy": set()}
    for case in catalog.load()["ops"]:
        for m in catalog.measurements(case):
            if m.verdict not in (catalog.OK, catalog.CASE_ERROR):
                failing[m.exporter].add(case)
    covered = {case for d in DECOMPOSITIONS for case in d.catalog_cases}
    covered |= {case for rule in all_rules() for case in getattr(rule, "fixed_catalog_cases", ())}
    either = failing["dynamo"] | failing["legacy"]
    return {
        "variants": len(catalog.load()["ops"]), "dynamo": len(failing["dynamo"]), "legacy": len(failing["legacy"]),
        "decompositions": len(DECOMPOSITIONS), "dynamo_covered": len(failing["dynamo"] & covered),
        "either": len(either), "either_covered": len(either & covered), "uncovered": len(failing["dynamo"] - covered),
    }


# The operator paragraph's sentences with their numbers as named groups (free line breaks).
COVERAGE_SENTENCES = (
    r"over (?P<variants>\d+)\s+operator\s+variants:\s+(?P<dynamo>\d+)\s+fail\s+or\s+are\s+silently\s+wrong\s+"
    r"with\s+the\s+default\s+dynamo\s+exporter,\s+(?P<legacy>\d+)\s+with\s+the\s+legacy\s+one",
    r"(?P<decompositions>\d+)\s+decompositions\s+into\s+exportable\s+torch\s+code(?:\s+\([^)]*\))?\s+cover\s+(?P<dynamo_covered>\d+)\s+"
    r"of\s+the\s+(?P<dynamo>\d+)\s+dynamo\s+failures\s+and\s+(?P<either_covered>\d+)\s+of\s+the\s+(?P<either>\d+)\s+"
    r"variants\s+that\s+fail\s+in\s+either;\s+the\s+other\s+(?P<uncovered>\d+)\s+have\s+no\s+faithful\s+rewrite",
)


def readme_numbers(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for sentence in COVERAGE_SENTENCES:
        match = re.search(sentence, text)
        assert match, f"README lost the sentence {sentence!r}"
        found.update({k: int(v) for k, v in match.groupdict().items()})
    return found


def regenerate(text: str) -> str:
    text = RULES_BLOCK.sub(lambda m: m.group(1) + rules_markdown() + m.group(3), text)
    numbers = operator_coverage()
    for sentence in COVERAGE_SENTENCES:
        def renumber(match):
            out, last = [], match.start()
            for name in match.re.groupindex:
                start, end = match.span(name)
                out += [match.string[last:start], str(numbers[name])]
                last = end
            return "".join(out) + match.string[last:match.end()]
        text = re.sub(sentence, renumber, text)
    return text
