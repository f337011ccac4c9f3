"""Rule selectors (the codes or prefixes of --select, --ignore and [tool.onnxfix]) checked
against the catalogs: each must match at least one static rule, and an export-time code gets
a message of its own. config.py reads the selectors; this check needs the catalogs, which sit
above config, so the callers that load settings pass ``rule_selectors`` to it.
"""

from __future__ import annotations

from onnxfix.config import SELECTOR, InvalidValue, selector_matches
from onnxfix.patterns import all_rules
from onnxfix.patterns.export_codes import export_code


def rule_selectors(values, where: str) -> tuple[str, ...]:
    """Rule codes or prefixes (or ALL), upper-cased; each must match at least one rule."""
    if not values:
        raise InvalidValue(f"invalid value '' for {where}: expected rule codes or prefixes")
    for value in values:
        problem = _selector_problem(value.strip().upper())
        if problem:
            raise InvalidValue(f"invalid value {value!r} for {where}: {problem}")
    return tuple(v.strip().upper() for v in values)


def _selector_problem(selector: str) -> str | None:
    if SELECTOR.fullmatch(selector) and any(selector_matches(r.code, (selector,)) for r in all_rules()):
        return None
    if export_code(selector) is not None:
        return "an export-time code (reported by `onnxfix export`), not a static rule"
    return "no rule or family matches (`onnxfix rules` lists them)"
