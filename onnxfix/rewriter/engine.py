"""Check one file, or fix it: parse, find export-time code, run the rules, apply fixes.

Fixing is a loop (like ruff's): apply every chosen fix, re-parse, re-check, until nothing
applicable is left. That makes a second ``--write`` a no-op by construction, and a rewrite that
would not parse is never written.
"""

from __future__ import annotations

import ast
import bisect
from dataclasses import dataclass, replace
from pathlib import Path

from onnxfix.config import LEGACY, Settings
from onnxfix.decompositions import helpers_called_by
from onnxfix.rewriter.callsites import CallSites
from onnxfix.rewriter.context import FileContext, FunctionContext, ModuleContext
from onnxfix.rewriter.edits import add_prelude, apply_edits, choose_fixes, drop_imports_fixes_emptied
from onnxfix.rewriter.evidence import load as load_evidence
from onnxfix.rewriter.function_body import walk_function_body
from onnxfix.rewriter.module_index import ModuleIndex, Resolver
from onnxfix.rewriter.noqa import NoqaMap
from onnxfix.rewriter.recorded_reach import widened_by_evidence
from onnxfix.rewriter.rule import FileResult, Finding, Fix, Helper, Rule
from onnxfix.rewriter.scope import Entry, ExportScope, ScopeBuilder, functions_from_reach
from onnxfix.rewriter.source import SourceError, SourceFile, parse_python
from onnxfix.rewriter.triggers import Triggers, words_of
from onnxfix.rewriter.tree_walk import walk

MAX_FIX_ROUNDS = 10


class InternalError(Exception):
    """A bug in onnxfix (a rule crashed, or a fix produced code that does not parse)."""


def error_location(exc: BaseException, doing: str = "") -> tuple[int, int, str]:
    """(line, column, message) reported for a file whose processing raised ``exc``: the one
    wording for every stage (``doing`` names a stage in the message of unexpected errors)."""
    if isinstance(exc, SourceError):
        return exc.line, exc.col, exc.message
    if isinstance(exc, InternalError):
        return 1, 1, str(exc)
    if isinstance(exc, RecursionError):
        return 1, 1, "code too deeply nested to analyse; file skipped"
    while_doing = f" while {doing}" if doing else ""
    return 1, 1, f"internal error{while_doing}: {type(exc).__name__}: {exc} (please report this bug)"


@dataclass
class RuleSet:
    rules: list[Rule]

    def __post_init__(self):
        self.visitors: dict[type, list] = {}
        self.module_rules = [rule for rule in self.rules if rule.scope == "module"]
        self.function_rules = [rule for rule in self.rules if rule.scope != "module"]
        for rule in self.function_rules:
            for node_type, method in rule.visited_node_types().items():
                self.visitors.setdefault(node_type, []).append(getattr(rule, method))
        self._selections: dict[tuple, RuleSet] = {}
        self._triggers = [(rule, Triggers(list(rule.triggers)) if rule.triggers else None) for rule in self.rules]
        self._narrowed: dict[tuple[bool, ...], RuleSet] = {}

    def selected(self, settings: Settings) -> "RuleSet":
        """The rules `select`/`ignore` leave (per-file-ignores and exporters still filter the
        findings): rules nobody asked for are not run at all."""
        key = (settings.select, settings.ignore)
        if key not in self._selections:
            rules = [r for r in self.rules if settings.is_selected(r.code)]
            self._selections[key] = self if len(rules) == len(self.rules) else RuleSet(rules)
        return self._selections[key]

    def triggered_in(self, text: str) -> "RuleSet":
        """The rules that can report in ``text``: those without triggers and those whose
        trigger it holds (a rule only reports where its trigger occurs)."""
        raw = text.encode("utf-8", "surrogatepass")
        words = words_of(raw)
        present = tuple(triggers is None or triggers.found_among(words, raw) for _, triggers in self._triggers)
        if all(present):
            return self
        if present not in self._narrowed:
            self._narrowed[present] = RuleSet([rule for rule, keep in zip(self.rules, present) if keep])
        return self._narrowed[present]


def check_text(
    text: str,
    source: SourceFile,
    display_path: str,
    settings: Settings,
    ruleset: RuleSet,
    resolver: Resolver | None = None,
    package: str | None = None,
    reach: dict[str, Entry] | None = None,
    tree: ast.Module | None = None,
    file: str = "",
) -> list[Finding]:
    """All selected, unsuppressed findings in ``text`` (the current content of ``source``).

    ``reach`` (function key -> the forward reaching it, computed across the project by
    rewriter/project.py) replaces the single-file reachability when given; ``tree`` is the
    parse of ``text`` when the caller has it already (a 10 MB file parses in seconds). ``file``
    is the file's identity (absolute path): the reach's entries name files by it, and a forward
    is only recognised as itself (no "reached from") when the identities match."""
    if text != source.text:  # a later fix round: positions and segments refer to ``text``
        source = replace(source, text=text, _line_starts=[])
    tree = tree or parse_python(text)
    module = ModuleIndex.build(tree, display_path, package, file)
    if reach is not None:
        scope = functions_from_reach(module, reach)
    else:
        scope = ScopeBuilder(resolver).build([module])
    return findings_in_module(source, tree, module, scope, display_path, settings, ruleset)


def findings_in_module(source, tree, module, scope: ExportScope, display_path, settings, ruleset) -> list[Finding]:
    evidence = load_evidence(settings.evidence_dir, source.text)
    ruleset = ruleset.selected(settings)
    if evidence is None:  # a recorded run's facts (a dtype, a decomposed call) need no trigger word
        ruleset = ruleset.triggered_in(source.text)
    scope = widened_by_evidence(scope, module, evidence)
    file_ctx = FileContext(source, module, display_path, evidence, CallSites(source.text, module))
    noqa = NoqaMap(source.text)
    path = Path(display_path)
    # Every context exists before any rule runs: a parameter's size-ness is read in its callers'.
    contexts = [FunctionContext(file_ctx, fn) for fn in scope.in_module(module)]
    _link_enclosing(contexts)
    for ctx in contexts:  # a rule reads its callers' trees (call sites, bindings): in any order of functions
        ctx.with_parents()
    found = [f for ctx in contexts for f in _run_rules(ctx, ruleset)]
    if ruleset.module_rules:
        found.extend(_run_module_rules(ModuleContext(file_ctx, scope), ruleset))
    findings = []
    suppressed: set[int] = set()  # lines of findings silenced by noqa: no fix may edit them
    for finding in found:
        if noqa.suppresses(finding.line, finding.code):
            suppressed.update(range(finding.line, finding.end_line + 1))
            continue
        if not settings.is_selected(finding.code, path):
            continue
        if not set(finding.exporters) & settings.exporters:
            continue
        findings.append(_for_exporters(finding, settings))
    return _dedupe([_sparing(f, suppressed, source) for f in _undeferred(findings)])


def _undeferred(findings: list[Finding]) -> list[Finding]:
    """The findings without those another reported finding covers (ONX601's `if` around a cut to
    the k best rows, which ONX615 fixes): with that rule not selected, they stand."""
    reported = {(f.code, f.line, f.col) for f in findings}
    return [f for f in findings if f.deferred_to is None or f.deferred_to not in reported]


def _for_exporters(finding: Finding, settings: Settings) -> Finding:
    """The finding with the fix for the exporters the project targets: a fix's `for_legacy` form
    where it targets the legacy exporter. Resolved here, once, so that every reader (--write,
    the JSON/SARIF edits, `onnxfix export --fix`'s batches and repairs) sees the same fix."""
    if LEGACY in settings.exporters and finding.fix is not None and finding.fix.for_legacy is not None:
        return replace(finding, fix=finding.fix.for_legacy)
    return finding


def _sparing(finding: Finding, suppressed: set[int], source: SourceFile) -> Finding:
    """The finding without its fix when the fix would edit a line whose finding noqa
    silences: a grouped fix (the NumPy region of ONX1xx) spans other findings' lines, and
    `a = x.numpy()  # noqa: ONX102` must stay as written. Fixes are all-or-nothing, so the
    fix is dropped rather than narrowed."""
    if finding.fix is None or not suppressed:
        return finding
    if any(line in suppressed for edit in finding.fix.edits for line in _edited_lines(edit, source)):
        return replace(finding, fix=None)
    return finding


def _edited_lines(edit, source: SourceFile) -> range:
    starts = source.line_starts
    first = bisect.bisect_right(starts, edit.start)
    last = bisect.bisect_right(starts, max(edit.start, edit.end - 1))
    return range(first, last + 1)


def _run_module_rules(ctx: ModuleContext, ruleset: RuleSet) -> list[Finding]:
    try:
        return [finding for rule in ruleset.module_rules for finding in rule.check_module(ctx) or ()]
    except (SourceError, InternalError):
        raise
    except Exception as exc:  # a rule bug must not take the other files down
        raise InternalError(f"internal error in a module-wide rule: {type(exc).__name__}: {exc}") from exc


def _run_rules(ctx: FunctionContext, ruleset: RuleSet):
    visitors = ruleset.visitors
    ctx.with_parents()
    try:
        for node, _ in walk_function_body(ctx.fn.node):
            for visit in visitors.get(type(node), ()):
                yield from visit(node, ctx) or ()
        for rule in ruleset.function_rules:
            yield from rule.check_function(ctx) or ()
    except (SourceError, InternalError):
        raise
    except RecursionError:
        raise SourceError("code too deeply nested to analyse", ctx.fn.node.lineno) from None
    except Exception as exc:  # a rule bug must not take the other files down
        raise InternalError(
            f"internal error while checking {ctx.fn.entry.qualname}: {type(exc).__name__}: {exc}"
        ) from exc


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen = set()
    unique = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        key = (finding.code, finding.line, finding.col, finding.end_line, finding.end_col)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def applicable(finding: Finding, unsafe: bool) -> bool:
    return finding.fix is not None and (finding.fix.safe or unsafe)


def fix_key(finding: Finding, text: str) -> str:
    """A name for one finding's fix that survives other fixes: its code and the code it covers
    (line numbers and columns shift when fixes elsewhere insert helpers or shorten a line)."""
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[:finding.line - 1]) + finding.col - 1
    end = sum(len(line) for line in lines[:finding.end_line - 1]) + finding.end_col - 1
    key = f"{finding.code}:{' '.join(text[start:max(start, end)].split())}"
    return f"{key}:{finding.fix.key}" if finding.fix is not None and finding.fix.key else key


def _allowed(finding: Finding, text: str, settings: Settings) -> bool:
    if not applicable(finding, settings.unsafe_fixes):
        return False
    return settings.fix_only is None or fix_key(finding, text) in settings.fix_only


def fix_text(source: SourceFile, display_path: str, settings: Settings, ruleset: RuleSet, **kw) -> tuple[str, int, list[Finding]]:
    """(fixed text, number of findings fixed, findings left)."""
    text = source.text
    tree = None
    fixed = 0
    proven: frozenset[str] | None = None  # fix keys run-time evidence proved safe in round one
    for _ in range(MAX_FIX_ROUNDS):
        findings = check_text(text, source, display_path, settings, ruleset, tree=tree, **kw)
        if proven is None:
            proven = _evidence_proven(findings, text, settings)
        else:
            findings = [_proven_safe(f, text, proven) for f in findings]
        if settings.unsafe_fixes:  # the stronger alternative where a fix has one
            findings = [replace(f, fix=f.fix.stronger) if f.fix and f.fix.stronger else f for f in findings]
        candidates = [f for f in findings if _allowed(f, text, settings)]
        if not candidates:
            return text, fixed, findings
        chosen = choose_fixes(f.fix for f in candidates)
        new_text, tree = _apply(text, chosen, source.newline)
        if new_text == text:
            return text, fixed, findings
        fixed += sum(1 for f in candidates if f.fix in chosen or _in_groups(f.fix, chosen))
        text = new_text
    findings = check_text(text, source, display_path, settings, ruleset, tree=tree, **kw)
    return text, fixed, [_proven_safe(f, text, proven or frozenset()) for f in findings]


def _evidence_proven(findings: list[Finding], text: str, settings: Settings) -> frozenset[str]:
    """The keys of the safe fixes in the recorded text, when a run recorded it: evidence is
    keyed by the exact text (rewriter/evidence.py), so the next round, on the text the first
    fixes made, is checked statically, and a fix that only the evidence made safe would turn
    unsafe as soon as a fix on another line applied first. A key counts only when every
    finding it names was safe (two `x.data` of different functions share one key)."""
    if not settings.evidence_dir or load_evidence(settings.evidence_dir, text) is None:
        return frozenset()
    safe: dict[str, bool] = {}
    for finding in findings:
        if finding.fix is not None:
            key = fix_key(finding, text)
            safe[key] = safe.get(key, True) and finding.fix.safe
    return frozenset(key for key, ok in safe.items() if ok)


def _proven_safe(finding: Finding, text: str, proven: frozenset[str]) -> Finding:
    """``finding`` of a later round, its fix safe when evidence proved it in the recorded text
    (the fix loop of `onnxfix export --fix` applies every kept key from the recorded text)."""
    if not proven or finding.fix is None or finding.fix.safe or fix_key(finding, text) not in proven:
        return finding
    return replace(finding, fix=replace(finding.fix, safe=True))


def _in_groups(fix: Fix, chosen: list[Fix]) -> bool:
    return fix.group is not None and any(c.group == fix.group for c in chosen)


def _apply(text: str, fixes: list[Fix], newline: str) -> tuple[str, ast.Module]:
    """The text with ``fixes`` applied, and its parse (a fix that breaks the file is a bug)."""
    edited = apply_edits(text, [e for fix in fixes for e in fix.edits], newline)
    try:
        tree = ast.parse(edited)
    except SyntaxError as exc:
        raise InternalError(f"internal error: a fix produced code that does not parse ({exc.msg}); file not changed") from None
    trimmed = drop_imports_fixes_emptied(text, tree, edited)
    if trimmed != edited:
        edited, tree = trimmed, ast.parse(trimmed)
    imports = {m for fix in fixes for m in fix.imports}
    helpers = [h for fix in fixes for h in fix.helpers]
    helpers += [Helper(name, source) for name, source in helpers_called_by([h.source for h in helpers])]
    result = add_prelude(edited, tree, imports, helpers, newline)
    if result == edited:
        return result, tree
    try:
        return result, ast.parse(result)
    except SyntaxError as exc:
        raise InternalError(f"internal error: inserting imports/helpers broke the file ({exc.msg}); file not changed") from None


def process_file(path: Path, display_path: str, settings: Settings, ruleset: RuleSet, mode: str, **kw) -> FileResult:
    """mode: 'check' (report), 'diff' (compute fixes, write nothing), 'write' (apply)."""
    result = FileResult(path=display_path)
    try:
        source = SourceFile.read(path)
        if mode == "check":
            result.findings = check_text(source.text, source, display_path, settings, ruleset, **kw)
            return result
        new_text, fixed, remaining = fix_text(source, display_path, settings, ruleset, **kw)
        result.findings = remaining
        result.fixes_applied = fixed
        if new_text != source.text:
            result.original_text = source.text
            result.fixed_text = new_text
            if mode == "write":
                source.write(new_text)
    except Exception as exc:  # noqa: BLE001 - reported on this file; the others are processed
        result.error = error_location(exc)
    return result


def _link_enclosing(contexts: list[FunctionContext]) -> None:
    """Give each nested function (key `Model.forward.inner`) its enclosing function's context: what
    the closure reads is typed there."""
    by_key = {ctx.fn.key: ctx for ctx in contexts}
    for ctx in contexts:
        parent_key, _, _ = ctx.fn.key.rpartition(".")
        parent = by_key.get(parent_key)
        if parent is not None and isinstance(parent.fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                node is ctx.fn.node for node in walk(parent.fn.node)):
            ctx.outer_function = parent
