"""`onnxfix export`: for each target, static findings, an isolated export + verification per
exporter, findings mapped back to source; with --fix, the same again after the static fixes.

Torch-free: every export runs in a worker process (isolate.run_isolated).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from onnxfix.exporter.export_repairs import GROW_KEY
from onnxfix.exporter.isolate import ExportRequest, run_isolated
from onnxfix.exporter.locations import ExportFinding, innermost_user, line_in_original
from onnxfix.exporter.outputs import needs_cache_off, turn_cache_off
from onnxfix.exporter.outputs import refine as refine_unflattenable
from onnxfix.exporter.plan import Target
from onnxfix.exporter.repair_candidates import decompositions_that_help
from onnxfix.exporter.result import LOAD_FAILS, OK, Verdict
from onnxfix.exporter.run_evidence import (FixedTextEvidence, note_checks, note_specialized, note_specialized_text,
                                           record_evidence, retarget)
from onnxfix.exporter.sourcemap import anchor, findings_for
from onnxfix.rewriter.rule import Finding
from onnxfix.rewriter.source import SourceFile

FIX_TEMPORARY, FIX_WRITE = "temporary", "write"


class Progress(Protocol):
    def start(self, label: str) -> None: ...
    def stage(self, stage: str) -> None: ...
    def tick(self) -> None: ...
    def done(self) -> None: ...
    def close(self) -> None: ...


class NoProgress:
    def start(self, label: str) -> None: pass
    def stage(self, stage: str) -> None: pass
    def tick(self) -> None: pass
    def done(self) -> None: pass
    def close(self) -> None: pass


@dataclass
class ExporterResult:
    verdict: Verdict
    findings: list[ExportFinding] = field(default_factory=list)
    # (path, line) of a failed export's innermost user frame, located while the file exported exists
    # (a fix loop's copy is deleted after), at the user's path (run_evidence.py notes it as "raised")
    raised_at: tuple[str, int] | None = None


@dataclass
class FixResult:
    mode: str  # "temporary" (a fixed copy was exported) or "write" (the file was fixed in place)
    diff: str = ""
    fixes_applied: int = 0
    results: list[ExporterResult] = field(default_factory=list)  # verdicts after the fixes
    error: str = ""
    dropped: list = field(default_factory=list)  # fixloop.Dropped: fixes that made a verdict worse
    exports: int = 0  # re-exports the fix loop made
    written: bool = False  # --write: the kept fixes are in the user's file
    # the eager run under the recorder: {"files": n, "functions": n} or {"error": "..."}
    evidence: dict = field(default_factory=dict)
    # decompositions the last export ran with (`--decompose-ops`): the failure was in code the
    # static fixes do not edit (site-packages), and they made some verdict better, none worse
    decompositions: tuple[str, ...] = ()
    # export-time decompositions written into the model's file where they replaced its calls
    decompositions_written: tuple[str, ...] = ()
    # text -> (keys, results) of with_repairs' last export of that text under repairs: the second
    # fix loop reads it instead of exporting the same again; not reported
    under_repairs: dict = field(default_factory=dict)


@dataclass
class TargetResult:
    target: Target
    results: list[ExporterResult] = field(default_factory=list)
    static_findings: list[Finding] = field(default_factory=list)
    fix: FixResult | None = None
    # Decomposition keys that would carry the failed exports through without a source change
    # (`--decompose-ops KEYS`): the other delivery channel of the ONX5xx fixes.
    decompose_hint: tuple[str, ...] = ()

    @property
    def final(self) -> list[ExporterResult]:
        return self.fix.results if self.fix and self.fix.results else self.results

    @property
    def ok(self) -> bool:
        return all(r.verdict.verdict == OK for r in self.final)

    @property
    def load_failed(self) -> bool:
        return any(r.verdict.verdict == LOAD_FAILS for r in self.final)


def run_target(target: Target, progress: Progress, fix: str | None = None, unsafe_fixes: bool | None = None) -> TargetResult:
    result = TargetResult(target, static_findings=static_findings(target, target.model_path, unsafe_fixes, target.spans))
    result.results = export_all(target, result.static_findings, progress)
    result.decompose_hint = decompositions_that_help(target, result.results, result.static_findings)
    if fix:
        result.fix = fix_and_reexport(target, fix, unsafe_fixes, progress, result.results,
                                      cache_off=needs_cache_off(result.results), decompose=result.decompose_hint)
    return result


def static_findings(target: Target, path: Path, unsafe_fixes: bool | None,
                    spans: tuple[tuple[str, int, int], ...] = ()) -> list[Finding]:
    """The static checker on the model's file, for the exporters being run. A live model
    (onnxfix.export) is made of classes that may share their files with other code (a script,
    a notebook's module): only the findings inside those classes count."""
    from onnxfix.rewriter.runner import run

    paths = list(dict.fromkeys([path, *(Path(p) for p, _, _ in spans)]))
    found = run(paths, "check", unsafe_fixes=unsafe_fixes, exporters=frozenset(target.exporters)).findings
    if not spans:
        return found
    return [f for f in found if any(os.path.realpath(f.path) == p and a <= f.line <= b for p, a, b in spans)]


def export_all(target: Target, static: list[Finding], progress: Progress, rename: dict[str, str] | None = None,
               sys_path: list[str] | None = None) -> list[ExporterResult]:
    fallback = anchor(target.model_path, target.factory)
    results = []
    for exporter in target.exporters:
        progress.start(f"{target.name} [{exporter}]")
        request = ExportRequest(
            model=target.model, inputs=target.inputs, exporter=exporter, probes=target.probes,
            dynamic=target.dynamic, opset=target.opset, out=target.output_for(exporter),
            sys_path=[*(sys_path or []), *target.sys_path],
            decompose=None if target.decompose is None else list(target.decompose),
            live=target.live, modules=target.modules,
        )
        verdict = run_isolated(request, target.timeout, on_stage=progress.stage, on_tick=progress.tick)
        progress.done()
        verdict.decomposed_at = [[key, (rename or {}).get(path, path), line] for key, path, line in verdict.decomposed_at]
        findings = findings_for(verdict, fallback, static)
        refine_unflattenable(findings, verdict, target.model_path, target.factory)
        # grown examples: eager never ran the exported inputs, so a check raised there may be right
        grown = GROW_KEY in (target.decompose or ())
        results.append(ExporterResult(verdict, [_renamed(f, rename or {}) for f in findings],
                                      None if grown else _raised_at(verdict, rename or {})))
    return results


def _raised_at(verdict: Verdict, rename: dict[str, str]) -> tuple[str, int] | None:
    """Where a failed export stopped in the user's code: its innermost user frame."""
    if verdict.failed_stage != "export" or not verdict.error_frames:
        return None
    found = innermost_user([(path, int(line)) for path, line, _ in verdict.error_frames])
    return None if found is None else (rename.get(found.path, found.path), found.line)


def _renamed(finding: ExportFinding, rename: dict[str, str]) -> ExportFinding:
    """Findings in a fixed temporary copy are shown at the original file's path."""
    path = rename.get(finding.location.path)
    if path is None:
        return finding
    finding.location = replace(finding.location, path=path)
    finding.fixed_by = [replace(link, path=rename.get(link.path, link.path)) for link in finding.fixed_by]
    return finding


def fix_and_reexport(target: Target, mode: str, unsafe_fixes: bool | None, progress: Progress,
                     before: list[ExporterResult], cache_off: bool = False,
                     decompose: tuple[str, ...] = ()) -> FixResult:
    """The fix loop (fixloop.py) on temporary copies; with --write, its result is written in
    place only when no exporter's verdict is worse than before. cache_off: an export failed on
    a returned KV cache: every attempt also sets use_cache=False at the factory's config.
    decompose: the decompositions the first run named (`--decompose-ops`), tried once more
    after the loop when some export still fails, with those the loop's last exports name."""
    from onnxfix import output
    from onnxfix.exporter import fixloop, repair_rounds
    from onnxfix.exporter.fixloop import oks
    from onnxfix.rewriter.paths import display_path

    source = target.model_path
    outcome = FixResult(mode)
    original = SourceFile.read(source).text  # decoded as the fixer reads it (BOM, encoding, line endings)
    evidence, outcome.evidence = record_evidence(target)
    if evidence:
        note_specialized(Path(evidence), before)
        note_checks(target, source, original, before, evidence)
    static_fix = lambda keys: _static_fix(target, source, unsafe_fixes, keys, evidence)
    cache = (lambda text: (turn_cache_off(text, target.factory) or (text,))[0]) if cache_off else (lambda text: text)

    def export(fixed, keys=None, exporters=None):
        chosen = replace(target, decompose=keys or target.decompose)
        if exporters and tuple(exporters) != tuple(target.exporters):  # `-o out.onnx`: still out.<exporter>.onnx
            chosen = replace(chosen, exporters=tuple(exporters),
                             output=target.output_for(exporters[0]) if len(exporters) == 1 else target.output)
        results = _export_text(chosen, source, cache(fixed.text), unsafe_fixes, progress)
        if evidence:  # the checks torch.export suggests for this text's guards, evaluated for ONX611
            note_checks(target, source, fixed.text, results, evidence)
            note_specialized_text(Path(evidence), source, fixed.text, results)
        return results
    try:
        start = static_fix(frozenset())
        baseline = before
        as_is = lambda fixed, keys: _export_text(replace(target, decompose=keys), source, fixed.text,  # noqa: E731
                                                 unsafe_fixes, progress)
        if cache(start.text) != start.text and _flattened_outputs_help(start, decompose, before, as_is):
            cache = lambda text: text  # the cache stays an output (flattened while exporting): eager unchanged
        if cache(start.text) != start.text:  # the cache switch alone is the first attempt
            turned = export(start)
            # kept only where it makes an exporter OK and none worse: it changes what the model returns
            # (no cache), so one that only trades one failure for another (OpenVLA's legacy export,
            # failing on the cache and then on aten::full) is not worth it
            helps = oks(turned) > oks(before) and not fixloop.worsened(before, turned)
            baseline = turned if helps else before
            if baseline is before:  # it broke or fixed nothing (a config class that takes no use_cache): not again
                cache = lambda text: text
        # each kept text is run again under the recorder: the fixes it uncovers read its evidence
        kept = FixedTextEvidence(target, source, evidence) if evidence else None
        loop = fixloop.run_loop(
            fixloop.State(frozenset(), start, baseline),
            static_fix,
            export,
            _unsafe(source, unsafe_fixes),
            kept,
        )
    except FixError as exc:
        outcome.error = str(exc)
        return outcome
    outcome.dropped, outcome.exports = loop.dropped, loop.exports
    # the first run's names, and what the loop's last exports fail on (a failure the static fixes
    # uncovered: kornia's squeeze, reached once the inverse exports)
    decompose = tuple(dict.fromkeys((*decompose, *decompositions_that_help(target, loop.final.results, [],
                                                                            last_resort=True))))
    named_by = lambda results, tried=(): decompositions_that_help(target, results, [], tried, True)  # noqa: E731
    final = repair_rounds.with_repairs(loop.final, decompose, outcome, export, named_by)
    if decompose and not outcome.decompositions and loop.final.fixed.text != start.text and oks(
            loop.final.results) < len(loop.final.results):
        # a static fix the loop kept can stand in a repair's way (a `.long()` of a count that the
        # repair reads as a size): the repairs on the text before the static fixes, kept if more
        # exporters end OK there
        bare = repair_rounds.with_repairs(fixloop.State(frozenset(), start, baseline), decompose, outcome, export,
                                          named_by)
        if outcome.decompositions and oks(bare.results) > oks(final.results) and not fixloop.worsened(
                final.results, bare.results):
            final = bare  # (the static fixes the loop kept are left out: they stood in the repair's way)
        else:
            outcome.decompositions = ()
    try:
        final = repair_rounds.fixes_under_repairs(final, loop.final.results, outcome.decompositions or decompose,
                                                  outcome, static_fix, export, _unsafe(source, unsafe_fixes), kept)
    except FixError:
        pass  # the second pass is an extra: the result so far stands
    if outcome.decompositions:
        final = _decompositions_in_source(target, source, final, outcome, unsafe_fixes, export)
    if baseline is before and final.fixed.text == start.text and not outcome.decompositions:
        return outcome  # nothing kept: the verdicts stand
    turned_off = cache(final.fixed.text) != final.fixed.text  # the cache switch counts as one fix
    final = replace(final, fixed=replace(final.fixed, text=cache(final.fixed.text)))
    outcome.diff = output.unified_diff(display_path(source), original, final.fixed.text)
    outcome.fixes_applied = final.fixed.fixes_applied + int(turned_off)
    outcome.results = final.results
    if mode == FIX_WRITE:
        outcome.written = _write_if_no_worse(source, start.text, final, before, outcome)
    if not outcome.written:  # the findings point into the temporary copy: shown at the user's own lines
        _at_original_lines(outcome.results, source, original, final.fixed.text)
    return outcome


def _at_original_lines(results: list[ExporterResult], source: Path, original: str, fixed: str) -> None:
    back = line_in_original(original, fixed)
    path = os.path.realpath(source)
    for result in results:
        for finding in result.findings:
            if finding.location.path == path:
                finding.location = replace(finding.location, line=back(finding.location.line))
            finding.fixed_by = [replace(link, line=back(link.line)) if link.path == path else link
                                for link in finding.fixed_by]


def _flattened_outputs_help(start, decompose: tuple[str, ...], before, export) -> bool:
    """The outputs flattened at the export boundary (`flat_outputs`, export time only; ``export``
    runs the text as it is, the cache on) make some export OK and none worse: tried before
    use_cache=False, which changes what the model returns."""
    if "flat_outputs" not in decompose:
        return False
    from onnxfix.exporter import fixloop, repair_rounds

    flat = export(start, ("flat_outputs",))
    return fixloop.oks(flat) > fixloop.oks(before) and not fixloop.worsened(before, flat)


def _decompositions_in_source(target: Target, source: Path, final, outcome: FixResult, unsafe_fixes, export):
    """The kept export-time decompositions written where they replaced a call in the model's
    own file: the static rules run on the fixed text with the run's evidence of those calls
    (rewriter/evidence.py `decomposed`), which makes them report and rewrite the calls whatever
    the source showed (`**kwargs`, a rank). Kept when the fixed file exports, without any
    export-time help, no worse than the decomposed export did; code elsewhere (site-packages)
    keeps the export-time decompositions."""
    from onnxfix.exporter.fixloop import Fixed, worsened
    from onnxfix.patterns.operators.base import DECOMPOSED_IN_RUN
    from onnxfix.rewriter import evidence as run_evidence
    from onnxfix.rewriter.engine import fix_key
    from onnxfix.rewriter.runner import run

    own = os.path.realpath(source)
    every = {(key, os.path.realpath(path), int(line)) for r in final.results for key, path, line in r.verdict.decomposed_at}
    sites = sorted({(key, line) for key, path, line in every if path == own})
    if not sites:
        return final
    with tempfile.TemporaryDirectory(prefix="onnxfix-decomposed-") as folder:
        copy = Path(folder) / source.name
        copy.write_text(final.fixed.text, encoding="utf-8", newline="")
        text = SourceFile.read(copy).text
        run_evidence.store(Path(folder) / "evidence", text, {
            "format": run_evidence.FORMAT, "functions": [], "decomposed": [list(site) for site in sites]})
        options = dict(unsafe_fixes=unsafe_fixes, exporters=frozenset(target.exporters),
                       evidence_dir=str(Path(folder) / "evidence"), use_cache=False)
        found = [f for f in run([copy], "check", **options).files[0].findings
                 if f.fix is not None and DECOMPOSED_IN_RUN in f.message]
        keys = frozenset(fix_key(f, text) for f in found)
        ran = run([copy], "diff", fix_only=keys, **options) if keys else None
    if ran is None or ran.errors or ran.files[0].fixed_text in (None, final.fixed.text):
        return final
    (file,) = ran.files
    rewritten = Fixed(file.fixed_text, final.fixed.fixes_applied + file.fixes_applied, file.findings)
    results = export(rewritten)
    outcome.exports += 1
    if worsened(final.results, results):
        return final
    outcome.decompositions_written = tuple(sorted({f.fix.helpers[-1].name.removeprefix("_onnx_") for f in found}))
    if all(path == own for _, path, _ in every):
        outcome.decompositions = ()  # the file carries them now: no export-time help is left
    return replace(final, fixed=rewritten, results=results)


def _unsafe(source: Path, unsafe_fixes: bool | None) -> bool:
    """--unsafe-fixes, else the config's `unsafe-fixes` (as the static fixer resolves it)."""
    from onnxfix.config import load_settings, with_overrides
    from onnxfix.patterns.selectors import rule_selectors

    return with_overrides(load_settings(source, rule_selectors), unsafe_fixes=unsafe_fixes).unsafe_fixes


class FixError(Exception):
    """The static fixer could not process the model's file."""


def _static_fix(target: Target, source: Path, unsafe_fixes: bool | None, keys: frozenset[str],
                evidence: str | None = None):
    """The model's file with the fixes named by ``keys`` applied, in memory; ``evidence``: the
    folder of a recorded eager run (evidence changes findings without changing the file, so the
    findings cache is bypassed)."""
    from onnxfix.exporter.fixloop import Fixed
    from onnxfix.rewriter.runner import run

    ran = run([source], "diff", unsafe_fixes=unsafe_fixes, exporters=frozenset(target.exporters), fix_only=keys,
              evidence_dir=evidence, use_cache=evidence is None)
    if ran.errors:
        raise FixError("; ".join(f"{e.path}:{e.error[0]}:{e.error[1]}: {e.error[2]}" for e in ran.errors))
    (file,) = ran.files
    if file.fixed_text is None:
        return Fixed(SourceFile.read(source).text, 0, file.findings)
    return Fixed(file.fixed_text, file.fixes_applied, file.findings)


def _write_if_no_worse(source: Path, original: str, final, before: list[ExporterResult], outcome: FixResult) -> bool:
    """Every kept fix was checked against the verdicts before it; check the whole once more,
    and that nobody edited the file meanwhile, before writing it in place."""
    from onnxfix.exporter.fixloop import worsened

    why = worsened(before, final.results)
    if why:
        outcome.error = f"not written: {', '.join(why)}"
        return False
    current = SourceFile.read(source)
    if current.text != original:
        outcome.error = f"not written: {source} changed while it was being exported"
        return False
    current.write(final.fixed.text)
    return True


def _export_text(target: Target, source: Path, text: str, unsafe_fixes: bool | None, progress: Progress) -> list[ExporterResult]:
    """Export ``text`` as the model's file: a copy in a temporary folder (imports of the
    model's siblings still resolve), findings shown at the original path."""
    with tempfile.TemporaryDirectory(prefix="onnxfix-fixed-") as folder:
        copy = Path(folder) / source.name
        copy.write_text(text, encoding="utf-8", newline="")
        moved = retarget(target, source, copy)
        rename = {os.path.realpath(copy): os.path.realpath(source)}
        return export_all(moved, static_findings(target, copy, unsafe_fixes), progress, rename,
                          sys_path=[str(source.resolve().parent)])
