"""Rendering `onnxfix export` results: text checklist, JSON (schema in docs/export-cmd.md),
Markdown and HTML reports. Output only; no decisions are made here.
"""

from __future__ import annotations

import html
import json
import math

from onnxfix import output
from onnxfix.exporter.result import STAGE_FAILED, STAGE_OK, STAGES, Verdict
from onnxfix.exporter.session import ExporterResult, TargetResult
from onnxfix.exporter.sourcemap import ExportFinding, headline
from onnxfix.rewriter.runner import display_path

SCHEMA_VERSION = 1
MARKS = {STAGE_OK: "ok", STAGE_FAILED: "FAILED", "skipped": "-"}


# ---- text -----------------------------------------------------------------------------------

def finding_line(finding: ExportFinding) -> str:
    loc = finding.location
    text = f"{display_path_str(loc.path)}:{loc.line}:{loc.col}: {finding.code} [{finding.exporter}] {finding.message}"
    for relation, words in (("same-line", "fixed by"), ("same-file", "likely fixed by")):
        links = [l for l in finding.fixed_by if l.relation == relation]
        if links:
            text += f" ({words} " + ", ".join(f"{l.code} at {display_path_str(l.path)}:{l.line}" for l in links) + ")"
    return text


def decompose_hint_line(keys: tuple[str, ...]) -> str:
    return (f"hint: `--decompose-ops {','.join(keys)}` exports with onnxfix's decompositions of these ops "
            "without editing the source (`--fix` writes them into the source instead)")


def display_path_str(path: str) -> str:
    from pathlib import Path

    return display_path(Path(path))


def checklist(verdict: Verdict) -> str:
    stages = verdict.stages()
    return "  ".join(f"{stage} {MARKS[stages[stage]]}" for stage in STAGES)


def verdict_lines(results: list[ExporterResult], indent: str = "  ") -> list[str]:
    lines = []
    for result in results:
        v = result.verdict
        lines.append(f"{indent}{v.exporter:<7} {v.verdict:<15} {checklist(v)}   ({v.seconds:.1f} s)")
        detail = _detail(v)
        if detail:
            lines.append(f"{indent}        {detail}")
    return lines


def _detail(v: Verdict) -> str:
    if v.ok:
        worst = max((p.max_abs for p in v.probes if p.max_abs is not None), default=0.0)
        return f"{len(v.probes)} input sets match PyTorch (max abs error {worst:.2g})"
    if v.failing_probe:
        probe = next(p for p in v.probes if p.probe == v.failing_probe)
        bad = [o for o in probe.outputs if not o.ok]
        what = probe.note or ", ".join(f"output {o.index}: max abs error {o.max_abs:.3g}" for o in bad if o.max_abs is not None)
        return f"first wrong on {v.failing_probe}: {what}"[:300]
    return headline(v.error)[:300]


def text_report(results: list[TargetResult], unsafe_fixes: bool) -> str:
    lines: list[str] = []
    for result in results:
        lines.append(f"{result.target.name}")
        lines += verdict_lines(result.results)
        findings = [f for r in result.results for f in r.findings]
        lines += [finding_line(f) for f in findings]
        lines += [output.text_line(f, unsafe_fixes) for f in result.static_findings]
        if result.decompose_hint:
            lines.append(decompose_hint_line(result.decompose_hint))
        if result.fix:
            lines += _fix_lines(result)
        lines.append("")
    ok = sum(1 for r in results for e in r.final if e.verdict.ok)
    total = sum(len(r.final) for r in results)
    lines.append(f"{ok} of {total} export(s) OK." if ok < total else f"All {total} export(s) OK.")
    return "\n".join(lines)


def _fix_lines(result: TargetResult) -> list[str]:
    fix = result.fix
    lines = [evidence_line(fix.evidence)] if fix.evidence else []
    if fix.error:
        return lines + [f"  --fix: {fix.error}"]
    if not fix.diff:
        return lines + ["  --fix: no static fix applies; verdicts unchanged"]
    where = "in place" if fix.mode == "write" else "to a temporary copy"
    lines += [f"  --fix: applied {fix.fixes_applied} fix(es) {where}; verdicts before -> after:"]
    for before, after in zip(result.results, fix.results):
        lines.append(f"    {before.verdict.exporter:<7} {before.verdict.verdict} -> {after.verdict.verdict}")
    lines += verdict_lines(fix.results, indent="    ")
    lines += ["    " + finding_line(f) for r in fix.results for f in r.findings]
    lines += ["    " + line for line in fix.diff.rstrip("\n").splitlines()]
    return lines


def evidence_line(evidence: dict) -> str:
    if "error" in evidence:
        return f"  --fix: no run-time evidence (the eager run failed: {headline(evidence['error'])[:200]})"
    return (f"  --fix: run-time evidence from one eager run: {evidence['functions']} function(s) "
            f"in {evidence['files']} file(s)")


# ---- JSON -----------------------------------------------------------------------------------

def _number(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return value


def finding_json(finding: ExportFinding) -> dict:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "exporter": finding.exporter,
        "filename": display_path_str(finding.location.path),
        "location": {"row": finding.location.line, "column": finding.location.col},
        "fixed_by": [
            {"code": l.code, "filename": display_path_str(l.path), "row": l.line, "relation": l.relation}
            for l in finding.fixed_by
        ],
    }


def verdict_json(result: ExporterResult) -> dict:
    v = result.verdict
    return {
        "exporter": v.exporter,
        "verdict": v.verdict,
        "stages": v.stages(),
        "failing_probe": v.failing_probe or None,
        "error": v.error or None,
        "seconds": v.seconds,
        "onnx_path": v.onnx_path or None,
        "probes": [
            {
                "probe": p.probe, "ok": p.ok, "max_abs": _number(p.max_abs), "max_rel": _number(p.max_rel),
                "note": p.note or None,
                "outputs": [
                    {"index": o.index, "ok": o.ok, "max_abs": _number(o.max_abs), "max_rel": _number(o.max_rel), "note": o.note or None}
                    for o in p.outputs
                ],
            }
            for p in v.probes
        ],
        "op_histogram": v.op_histogram,
        "findings": [finding_json(f) for f in result.findings],
    }


def target_json(result: TargetResult) -> dict:
    t = result.target
    fix = None
    if result.fix:
        fix = {
            "mode": result.fix.mode,
            "fixes_applied": result.fix.fixes_applied,
            "diff": result.fix.diff,
            "error": result.fix.error or None,
            "results": [verdict_json(r) for r in result.fix.results],
            "evidence": result.fix.evidence,
        }
    return {
        "name": t.name,
        "model": t.model,
        "inputs": t.inputs,
        "probe_inputs": t.probes,
        "dynamic": {k: {str(d): n for d, n in v.items()} for k, v in t.dynamic.items()},
        "exporters": list(t.exporters),
        "opset": t.opset,
        "ok": result.ok,
        "results": [verdict_json(r) for r in result.results],
        "static_findings": [output.finding_json(f) for f in result.static_findings],
        "decompose_hint": list(result.decompose_hint),
        "fix": fix,
    }


def json_report(results: list[TargetResult], exit_code: int) -> str:
    document = {
        "schema_version": SCHEMA_VERSION,
        "ok": all(r.ok for r in results),
        "exit_code": exit_code,
        "targets": [target_json(r) for r in results],
    }
    return json.dumps(document, indent=2, sort_keys=False)


# ---- Markdown / HTML reports -------------------------------------------------------------------

def markdown_report(results: list[TargetResult]) -> str:
    parts = ["# onnxfix export report", ""]
    for result in results:
        parts += _markdown_target(result)
    return "\n".join(parts) + "\n"


def _markdown_target(result: TargetResult) -> list[str]:
    t = result.target
    lines = [f"## {t.name}", "", f"- model: `{t.model}`", f"- inputs: `{t.inputs}`"]
    if t.probes:
        lines.append(f"- probe inputs: `{t.probes}`")
    if t.dynamic:
        lines.append(f"- dynamic: `{t.dynamic}`")
    lines += ["", "| exporter | verdict | " + " | ".join(STAGES) + " | seconds |", "|---" * (len(STAGES) + 3) + "|"]
    for r in result.results:
        stages = r.verdict.stages()
        lines.append(f"| {r.verdict.exporter} | **{r.verdict.verdict}** | " + " | ".join(MARKS[stages[s]] for s in STAGES) + f" | {r.verdict.seconds:.1f} |")
    lines.append("")
    findings = [f for r in result.results for f in r.findings]
    if findings or result.static_findings:
        lines += ["### Findings", ""]
        lines += [f"- `{finding_line(f)}`" for f in findings]
        lines += [f"- `{output.text_line(f, False)}` (static)" for f in result.static_findings]
        lines.append("")
    for r in result.results:
        lines += _markdown_verdict(r)
    if result.fix:
        lines += ["### After `--fix`", ""]
        if result.fix.diff:
            lines += ["```diff", result.fix.diff.rstrip("\n"), "```", ""]
        for r in result.fix.results:
            lines += _markdown_verdict(r, "after fix")
    return lines


def _markdown_verdict(r: ExporterResult, when: str = "") -> list[str]:
    v = r.verdict
    title = f"### {v.exporter}: {v.verdict}" + (f" ({when})" if when else "")
    lines = [title, ""]
    if v.error:
        lines += ["```", v.error.strip()[:4000], "```", ""]
    if v.probes:
        lines += ["| input | output | max abs error | max rel error | ok | note |", "|---|---|---|---|---|---|"]
        for p in v.probes:
            rows = p.outputs or [None]
            for o in rows:
                if o is None:
                    lines.append(f"| {p.probe} | - | - | - | {'yes' if p.ok else 'NO'} | {_cell(p.note)} |")
                else:
                    lines.append(f"| {p.probe} | {o.index} | {_fmt(o.max_abs)} | {_fmt(o.max_rel)} | {'yes' if o.ok else 'NO'} | {_cell(o.note)} |")
        lines.append("")
    if v.op_histogram:
        lines += ["| ONNX operator | count |", "|---|---|"]
        lines += [f"| {op} | {n} |" for op, n in sorted(v.op_histogram.items(), key=lambda kv: (-kv[1], kv[0]))]
        lines.append("")
    return lines


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.3g}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:200]


def html_report(results: list[TargetResult]) -> str:
    """The Markdown report, wrapped: readable in a browser without a Markdown library."""
    body = html.escape(markdown_report(results))
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>onnxfix export report</title>"
        "<style>body{font-family:system-ui,sans-serif;margin:2em}pre{white-space:pre-wrap}</style></head>\n"
        f"<body><pre>{body}</pre></body></html>\n"
    )
