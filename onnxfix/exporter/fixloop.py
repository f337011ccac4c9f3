"""`onnxfix export --fix`: static fixes kept only where the exporters say they do not hurt.

A static fix never changes eager results (an unsafe one that does, where eager's result is
unspecified, is tried after every other fix and stays only where it makes an exporter OK), but it
can change what an exporter makes of the code:
dropping `int()` around a size fixes the legacy trace and may break the dynamo export. So fixes
are tried in sets, re-exported, and a set is kept only if no exporter's verdict gets worse:

- an exporter that was OK stays OK;
- one that failed loudly (EXPORT-FAILS, ORT-FAILS, CRASH) must not become SILENTLY-WRONG: a
  wrong model that loads is worse than an error;
- the model must still load (a fix cannot break eager PyTorch, but check it) and finish in time;
- an exporter that made a model that onnxruntime failed on (ORT-FAILS) must not stop making one
  (EXPORT-FAILS) unless some exporter becomes OK: the model ran on some inputs;
- an exporter must not start crashing (its process dying: a segfault takes the user's process
  with it, where an exception can be caught; VitMatte's legacy export segfaulted on a set of
  size-branch fixes that the set's ORT-FAILS before had let through, and the fixes that made it
  OK were never reached).

Each round tries the fixes at the lines the failed exports named first, with the fixes that
share a helper with them (else all the others), as one set; when the set is rejected, every fix
left as one set (fixes that only work together, causes at lines no export named), then each
fix of the first set alone. A fix dropped only because it turned a loud failure silent (the
export it unblocked stopped at a branch that another fix takes) is tried once more, with the
fixes kept after it: DINOv2's resize by the symbolic scale is wrong only until its size test is
kept symbolic too. A fix is named by
``engine.fix_key`` (its code and the code it covers), so the static fixer reproduces any kept
set from the user's unchanged file. Rounds go on until every exporter is OK or no fix is left
to try. Fixes kept though they changed no verdict can stand in another's way (a torch.cond
around a data-dependent `if` leaves ONX611's check of the branch nothing to apply to): when some
export still fails, the rounds run once more without them, and the result with more exporters OK
is kept. Torch-free: exports run in worker processes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Protocol

from onnxfix.exporter.result import CRASH, EXPORT_FAILS, LOAD_FAILS, OK, ORT_FAILS, SILENTLY_WRONG, TIMEOUT
from onnxfix.rewriter.engine import applicable, fix_key
from onnxfix.rewriter.rule import Finding

MAX_ROUNDS = 20


def worse(before: str, after: str) -> bool:
    """Whether one exporter's verdict got worse (the rule of the module docstring). Any
    verdict but OK turning SILENTLY-WRONG is worse; loud failures may trade places."""
    if before == after:
        return False
    if before == OK or after == SILENTLY_WRONG:
        return True
    return after in (LOAD_FAILS, TIMEOUT, CRASH)


def worsened(before: list, after: list) -> list[str]:
    """'dynamo OK -> ORT-FAILS' for each exporter whose verdict got worse."""
    return [f"{b.verdict.exporter} {b.verdict.verdict} -> {a.verdict.verdict}"
            for b, a in zip(before, after) if worse(b.verdict.verdict, a.verdict.verdict)]


class RunEvidence(Protocol):
    """The run's evidence of the texts the loop makes (exporter/run_evidence.py): ``record``
    runs the model on a text (False when it left none, or the text had some already). The
    guard lines of exports (rewriter/evidence.py `specialized`) stay those of the user's text:
    a text's findings must not change once it is exported."""

    def record(self, text: str) -> bool: ...


@dataclass
class Fixed:
    """The model's file with a set of fixes applied (the static fixer's answer)."""

    text: str
    fixes_applied: int
    findings: list[Finding]  # what is left, at positions in ``text``


@dataclass
class State:
    keys: frozenset[str]
    fixed: Fixed
    results: list  # ExporterResult per exporter, for ``fixed.text``


@dataclass
class Dropped:
    code: str
    path: str
    line: int  # in the file as fixed by the fixes kept before it was tried
    covers: str  # the code the fix would have rewritten
    why: list[str]  # 'dynamo OK -> ORT-FAILS', ...
    key: str = ""
    finding: Finding | None = None
    kept_then: frozenset[str] = frozenset()  # the fixes kept when it was dropped

    @property
    def only_silenced(self) -> bool:
        """Dropped only for turning a loud failure into SILENTLY-WRONG."""
        return bool(self.why) and all(w.endswith(f"-> {SILENTLY_WRONG}") and f" {OK} ->" not in w for w in self.why)


@dataclass
class LoopResult:
    final: State
    dropped: list[Dropped] = field(default_factory=list)
    exports: int = 0  # re-exports made (each runs every requested exporter)
    neutral: list[tuple[str, Finding]] = field(default_factory=list)  # fixes kept though no verdict changed


def run_loop(start: State, fix: Callable[[frozenset[str]], Fixed], export: Callable[[Fixed], list],
             unsafe: bool, evidence: RunEvidence | None = None, excluded: frozenset[str] = frozenset()) -> LoopResult:
    """``fix(keys)``: the file with those fixes applied; ``export(fixed)``: verdicts for it;
    ``evidence``: the run's evidence of each text tried, so that its findings and fixes are
    those a run of it shows (what the fixes uncovered: a write left bare by a dropped guard);
    ``excluded``: fixes never tried (an earlier loop's dropped ones)."""
    loop = _rounds(start, fix, export, unsafe, evidence, set(excluded))
    if loop.neutral and not all_ok(loop.final.results):
        # fixes kept because they changed no verdict can stand in the way of one that would (a
        # torch.cond around a data-dependent `if`, where ONX611's check of the branch the run took
        # exports): the rounds once more without them (a fix dropped in the first may hold without
        # them), kept if more exporters end OK
        again = _rounds(start, fix, export, unsafe, evidence, {key for key, _ in loop.neutral} | excluded)
        again.exports += loop.exports
        if oks(again.final.results) > oks(loop.final.results) and not worsened(loop.final.results, again.final.results):
            again.dropped += [Dropped(f.code, f.path, f.line, key.partition(":")[2],
                                      ["changed no verdict; left out of the run that made more exporters OK"])
                              for key, f in loop.neutral]
            return again
        loop.exports = again.exports
    return loop


def all_ok(results: list) -> bool:
    return all(r.verdict.verdict == OK for r in results)


def _models_lost(before: list, after: list) -> list[str]:
    """'legacy ORT-FAILS -> EXPORT-FAILS' for each exporter that made a model before and makes none
    now: loud failures may trade places, but where no exporter becomes OK the user loses an ONNX
    file that ran on some inputs for nothing (fairchem's charge embedding, blind domains-71)."""
    return [f"{b.verdict.exporter} {b.verdict.verdict} -> {a.verdict.verdict} (no model; no exporter becomes OK)"
            for b, a in zip(before, after) if b.verdict.verdict == ORT_FAILS and a.verdict.verdict == EXPORT_FAILS]


def oks(results: list) -> int:
    return sum(r.verdict.verdict == OK for r in results)


def _rounds(start: State, fix, export, unsafe: bool, evidence, excluded: set[str]) -> LoopResult:
    loop = LoopResult(start)
    settled: set[str] = set(excluded)  # kept or dropped (or excluded): never tried again
    _round_loop(loop, fix, export, unsafe, evidence, settled)
    if _retry_silenced(loop, fix, export, settled, evidence):
        _round_loop(loop, fix, export, unsafe, evidence, settled)
    return loop


def _retry_silenced(loop: LoopResult, fix, export, settled: set[str], evidence) -> bool:
    """Fixes dropped only for making a loud failure silent, tried again (as one set, then alone)
    on top of the fixes kept since: a wrong export that a later fix completes. True if any held."""
    if all_ok(loop.final.results):
        return False
    retry = [d for d in loop.dropped if d.only_silenced and d.finding is not None and d.kept_then != loop.final.keys]
    if not retry:
        return False
    settled.difference_update(d.key for d in retry)
    chosen = [(d.key, d.finding) for d in retry]
    kept = len(chosen) > 1 and _try(loop, chosen, fix, export, settled, evidence, record=False)
    if not kept:
        kept = any([_try(loop, [one], fix, export, settled, evidence, record=False) for one in chosen])
    settled.update(d.key for d in retry)
    loop.dropped = [d for d in loop.dropped if d.key not in loop.final.keys]
    return kept


def _round_loop(loop: LoopResult, fix, export, unsafe: bool, evidence, settled: set[str]) -> None:
    for _ in range(MAX_ROUNDS):
        if all_ok(loop.final.results):
            break
        batch, everything = _next_batch(loop.final, unsafe, settled)
        if not batch:
            break
        if len(batch) > 1 and _try(loop, batch, fix, export, settled, evidence):
            continue
        # fixes that only work together (a value one helper makes and another takes apart)
        # and fixes of the failures' causes at other lines: every fix left, as the static fixer
        if len(everything) > len(batch) and _try(loop, everything, fix, export, settled, evidence):
            continue
        for one in batch:  # the set made some exporter worse: find which fixes did
            _try(loop, [one], fix, export, settled, evidence)


def _next_batch(state: State, unsafe: bool, settled: set[str]) -> tuple[list, list]:
    """(the batch, every fix not tried yet), as (key, finding) pairs: the batch holds the fixes
    at lines the failed exports named and those sharing a helper with them (ONX526's complex
    pairs travel from one helper to another), else every fix. Keys are computed here, in the
    text the findings' positions refer to. Fixes that assume what the run saw (ONX611) wait
    until no other fix is left to try: an eager-only empty exit (ONX610) keeps what a check that
    the selection is never empty would drop."""
    text = state.fixed.text
    fresh: dict[str, Finding] = {}
    for finding in state.fixed.findings:
        key = fix_key(finding, text)
        if applicable(finding, unsafe) and key not in settled:
            fresh.setdefault(key, finding)
    named = named_lines(state.results)
    first = [(k, f) for k, f in fresh.items() if (os.path.realpath(f.path), f.line) in named]
    helpers = {name for _, f in first for name in _helper_names(f)}
    first += [(k, f) for k, f in fresh.items() if (k, f) not in first and helpers & _helper_names(f)]
    wait = min((_waits(f) for f in fresh.values()), default=0)
    everything = [(k, f) for k, f in fresh.items() if _waits(f) == wait]
    first = [(k, f) for k, f in first if (k, f) in everything]
    return first or everything, everything


def _waits(finding: Finding) -> int:
    """How long a fix waits: 0 not at all; 1 it assumes what the run saw (ONX611); 2 it changes
    eager results where eager's are unspecified (ONX537), judged after everything else."""
    return 2 if _rule_says(finding, "changes_eager") else 1 if _rule_says(finding, "assumes_run") else 0


def _rule_says(finding: Finding, flag: str) -> bool:
    from onnxfix.patterns import rule_by_code

    rule = rule_by_code(finding.code)
    return rule is not None and getattr(rule, flag)


def _fixed_with_evidence(fix, keys: frozenset[str], evidence: RunEvidence | None, rounds: int = 3) -> Fixed:
    """The file with ``keys`` applied where a run of each text they make shows them: evidence is
    keyed by text, and the fixer starts from the user's file, so a text that a set of fixes
    makes for the first time is run (recorded) and fixed again, until the text holds. The same
    keys thus always rebuild the same text, whatever set was tried before."""
    fixed = fix(keys)
    for _ in range(rounds if evidence is not None else 0):
        if not evidence.record(fixed.text):
            break  # evidence of this text was there already (or the run failed): fixed holds
        again = fix(keys)
        if again.text == fixed.text:
            return again  # the same text, its findings now as the run shows them
        fixed = again
    return fixed


def _verdicts(results: list) -> list[str]:
    return [r.verdict.verdict for r in results]


def _helper_names(finding: Finding) -> set[str]:
    return {helper.name for helper in finding.fix.helpers} if finding.fix else set()


def named_lines(results: list) -> set[tuple[str, int]]:
    named = set()
    for result in results:
        if result.verdict.verdict == OK:
            continue
        for finding in result.findings:
            named.add((finding.location.path, finding.location.line))
            named.update((link.path, link.line) for link in finding.fixed_by if link.relation == "same-line")
    return named


def _try(loop: LoopResult, chosen: list[tuple[str, Finding]], fix, export, settled: set[str], evidence=None,
         record: bool = True) -> bool:
    """Keep the fixes ``chosen`` if no verdict gets worse; a single fix is settled either way
    (``record``: a fix dropped here is listed as dropped, unless it was already)."""
    state = loop.final
    keys = {key for key, _ in chosen} - settled
    if not keys:
        return False
    fixed = _fixed_with_evidence(fix, state.keys | keys, evidence)
    alone = len(chosen) == 1
    if fixed.text == state.fixed.text:  # nothing applied (it overlapped another fix)
        settled.update(keys if alone else ())
        return False
    results = export(fixed)
    loop.exports += 1
    why = worsened(state.results, results)
    if not why and not oks(results) > oks(state.results) and any(
            _rule_says(finding, "changes_eager") for key, finding in chosen if key in keys):
        why = ["eager results change and no exporter becomes OK"]  # the order of ties, for nothing
    if not why and not oks(results) > oks(state.results):
        why = _models_lost(state.results, results)
    if not why:
        if evidence is not None:  # the export may have left evidence of this text (checks torch suggested)
            again = fix(state.keys | keys)
            fixed = again if again.text == fixed.text else fixed
        loop.final = State(state.keys | keys, fixed, results)
        settled.update(keys)
        if _verdicts(results) == _verdicts(state.results):
            loop.neutral.extend((key, finding) for key, finding in chosen if key in keys)
        return True
    if alone:
        ((key, finding),) = chosen
        if record:
            loop.dropped.append(Dropped(finding.code, finding.path, finding.line, key.partition(":")[2], why,
                                        key, finding, state.keys))
        settled.update(keys)
    return False
