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

from onnxfix.decompositions import BY_KEY
from onnxfix.exporter.isolate import ExportRequest, run_isolated, run_json_worker
from onnxfix.exporter.plan import Target
from onnxfix.exporter.result import OK, Verdict
from onnxfix.exporter.sourcemap import ExportFinding, anchor, findings_for
from onnxfix.rewriter.rule import Finding

LOAD_FAILS = "LOAD-FAILS"
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


@dataclass
class FixResult:
    mode: str  # "temporary" (a fixed copy was exported) or "write" (the file was fixed in place)
    diff: str = ""
    fixes_applied: int = 0
    results: list[ExporterResult] = field(default_factory=list)  # verdicts after the fixes
    error: str = ""
    # the eager run under the recorder: {"files": n, "functions": n} or {"error": "..."}
    evidence: dict = field(default_factory=dict)


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
    result = TargetResult(target, static_findings=static_findings(target, target.model_path, unsafe_fixes))
    result.results = export_all(target, result.static_findings, progress)
    result.decompose_hint = decompositions_that_help(target, result.results, result.static_findings)
    if fix:
        result.fix = fix_and_reexport(target, fix, unsafe_fixes, progress)
    return result


def static_findings(target: Target, path: Path, unsafe_fixes: bool | None) -> list[Finding]:
    """The static checker on the model's file, for the exporters being run."""
    from onnxfix.rewriter.runner import run

    return run([path], "check", unsafe_fixes=unsafe_fixes, exporters=frozenset(target.exporters)).findings


def decompositions_that_help(target: Target, results: list[ExporterResult], static: list[Finding]) -> tuple[str, ...]:
    """Keys of the decompositions behind the static findings that failed exports link to at
    their own line (none when the export already ran with --decompose)."""
    if target.decompose is not None:
        return ()
    linked = {(link.code, link.path, link.line) for r in results if r.verdict.verdict != OK
              for f in r.findings for link in f.fixed_by if link.relation == "same-line"}
    keys: list[str] = []
    for finding in static:
        if (finding.code, os.path.realpath(finding.path), finding.line) not in linked:
            continue
        helpers = finding.fix.helpers if finding.fix else ()
        key = helpers[-1].name.removeprefix("_onnx_") if helpers else ""  # the chain ends with the finding's own
        if key in BY_KEY and key not in keys:
            keys.append(key)
    return tuple(keys)


def export_all(target: Target, static: list[Finding], progress: Progress, rename: dict[str, str] | None = None,
               sys_path: list[str] | None = None) -> list[ExporterResult]:
    fallback = anchor(target.model_path, target.factory)
    results = []
    for exporter in target.exporters:
        progress.start(f"{target.name} [{exporter}]")
        request = ExportRequest(
            model=target.model, inputs=target.inputs, exporter=exporter, probes=target.probes,
            dynamic=target.dynamic, opset=target.opset, out=target.output_for(exporter), sys_path=sys_path or [],
            decompose=None if target.decompose is None else list(target.decompose),
        )
        verdict = run_isolated(request, target.timeout, on_stage=progress.stage, on_tick=progress.tick)
        progress.done()
        findings = findings_for(verdict, fallback, static)
        results.append(ExporterResult(verdict, [_renamed(f, rename or {}) for f in findings]))
    return results


def _renamed(finding: ExportFinding, rename: dict[str, str]) -> ExportFinding:
    """Findings in a fixed temporary copy are shown at the original file's path."""
    path = rename.get(finding.location.path)
    if path is None:
        return finding
    finding.location = replace(finding.location, path=path)
    finding.fixed_by = [replace(link, path=rename.get(link.path, link.path)) for link in finding.fixed_by]
    return finding


def fix_and_reexport(target: Target, mode: str, unsafe_fixes: bool | None, progress: Progress) -> FixResult:
    from onnxfix import output
    from onnxfix.rewriter.runner import run

    source = target.model_path
    outcome = FixResult(mode)
    folder, outcome.evidence = record_evidence(target)
    # Evidence changes findings without changing the file: the findings cache is bypassed.
    fixed = run([source], "write" if mode == FIX_WRITE else "diff", unsafe_fixes=unsafe_fixes,
                exporters=frozenset(target.exporters), evidence_dir=folder, use_cache=folder is None)
    if fixed.errors:
        outcome.error = "; ".join(f"{e.path}:{e.error[0]}:{e.error[1]}: {e.error[2]}" for e in fixed.errors)
        return outcome
    changed = fixed.changed
    if not changed:
        return outcome  # nothing to fix statically: the verdicts stand
    outcome.diff = "".join(output.unified_diff(c.path, c.original_text, c.fixed_text) for c in changed)
    outcome.fixes_applied = sum(c.fixes_applied for c in changed)
    if mode == FIX_WRITE:
        outcome.results = export_all(target, static_findings(target, source, unsafe_fixes), progress)
        return outcome
    with tempfile.TemporaryDirectory(prefix="onnxfix-fixed-") as folder:
        copy = Path(folder) / source.name
        copy.write_text(changed[0].fixed_text, encoding="utf-8", newline="")
        moved = _retarget(target, source, copy)
        rename = {os.path.realpath(copy): os.path.realpath(source)}
        outcome.results = export_all(moved, static_findings(target, copy, unsafe_fixes), progress, rename,
                                     sys_path=[str(source.resolve().parent)])
    return outcome


def record_evidence(target: Target) -> tuple[str | None, dict]:
    """Run the target once eagerly under the recorder (a child process: it runs user code) and
    return the evidence folder for the static rules, with what was recorded. No evidence (the
    model does not run, the recorder timed out) leaves the fixes static."""
    from onnxfix import __version__
    from onnxfix.config import load_settings
    from onnxfix.rewriter.runner import cache_folder

    # inside the version folder: pruned with the cache entries when unused for a month
    folder = cache_folder(None, load_settings(target.model_path)) / __version__ / "evidence"
    request = {"model": target.model, "inputs": target.inputs, "folder": str(folder)}
    result = run_json_worker("onnxfix.exporter.evidence_worker", request, target.timeout)
    return (None if "error" in result else str(folder)), result


def _retarget(target: Target, source: Path, copy: Path) -> Target:
    """Point every spec that names the model's file at the fixed copy."""
    def moved(spec: str | None) -> str | None:
        if spec is None:
            return None
        path, _, name = spec.rpartition(":")
        return f"{copy}:{name}" if Path(path).resolve() == source.resolve() else spec

    return replace(target, model=moved(target.model), inputs=moved(target.inputs), probes=moved(target.probes))
