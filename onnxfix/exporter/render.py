"""Rendering `onnxfix export` results: text checklist, JSON (schema in docs/export-cmd.md),
Markdown reports (the HTML one is render_html.py). Output only; no decisions are made here.
"""

from __future__ import annotations

import json
import math
import re

from onnxfix import output
from onnxfix.exporter.locations import ExportFinding
from onnxfix.exporter.result import STAGE_FAILED, STAGE_OK, STAGES, Verdict
from onnxfix.exporter.session import ExporterResult, TargetResult
from onnxfix.exporter.sourcemap import headline
from onnxfix.rewriter.paths import display_path

SCHEMA_VERSION = 1
MARKS = {STAGE_OK: "ok", STAGE_FAILED: "FAILED", "skipped": "-"}


# ---- text -----------------------------------------------------------------------------------

def finding_line(finding: ExportFinding) -> str:
    loc = finding.location
    text = f"{display_path_str(loc.path)}:{loc.line}:{loc.col}: {finding.code} [{finding.exporter}] {finding.message}"
    for relation, words in LINK_WORDS:
        for fixable in (True, False):
            links = [l for l in finding.fixed_by if l.relation == relation and l.fixable == fixable]
            if links:
                shown = ", ".join(f"{l.code} at {display_path_str(l.path)}:{l.line}" for l in links)
                text += f" ({words[fixable]} {shown})" if fixable else f" ({words[fixable]} {shown}: no automatic fix)"
    return text


# (relation, {fixable: words}): a static finding without a fix names the root, it fixes nothing
LINK_WORDS = (
    ("same-line", {True: "fixed by", False: "reported by"}),
    ("value-source", {True: "fixed at the value's source by", False: "reported at the value's source by"}),
    ("same-file", {True: "likely fixed by", False: "likely reported by"}),
)


def decompose_hint_line(keys: tuple[str, ...]) -> str:
    from onnxfix.decompositions import BY_KEY
    from onnxfix.exporter.export_repairs import EXPORT_REPAIRS

    text = (f"hint: `--decompose-ops {','.join(keys)}` exports with onnxfix's decompositions of these ops "
            "without editing the source")
    if any(key in BY_KEY and BY_KEY[key].written_from_run for key in keys):  # (an op-wrapping one stays export-time)
        text += " (`--fix` writes them into the source instead)"
    repairs = [EXPORT_REPAIRS[key].description for key in keys if key in EXPORT_REPAIRS]
    return text + "".join(f"; {repair} (export time only)" for repair in repairs)


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
        if v.layout:
            lines.append(f"{indent}        exported as a {v.layout}")
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
    flag = "--write" if fix.mode == "write" else "--fix"
    dropped = [f"  {flag}: dropped {d.code} at {display_path_str(d.path)}:{d.line} (`{d.covers}`): "
               + ", ".join(d.why) for d in fix.dropped]
    lines = [evidence_line(fix.evidence, flag)] if fix.evidence else []
    if fix.error and not fix.results:
        return lines + [f"  {flag}: {fix.error}"] + dropped
    if not fix.diff and not fix.decompositions:
        what = "no fix kept" if fix.dropped else "no static fix applies"
        return lines + [f"  {flag}: {what}; verdicts unchanged"] + dropped
    where = "in place" if fix.written else "to a temporary copy"
    if fix.decompositions:
        keys = ",".join(fix.decompositions)
        lines += [f"  {flag}: exported with onnxfix's decompositions of {keys} (only while exporting: eager "
                  f"PyTorch and the source untouched; `--decompose-ops {keys}` exports this way)"]
    if fix.decompositions_written:
        keys = ", ".join(f"_onnx_{key}" for key in fix.decompositions_written)
        lines += [f"  {flag}: the calls in the model's file that the export's decompositions replaced now call "
                  f"{keys} (the run proved they fail and that the helper exports)"]
    lines += [f"  {flag}: kept {fix.fixes_applied} fix(es), applied {where}; verdicts before -> after:"]
    for before, after in zip(result.results, fix.results):
        lines.append(f"    {before.verdict.exporter:<7} {before.verdict.verdict} -> {after.verdict.verdict}")
    lines += dropped
    if fix.error:
        lines.append(f"  {flag}: {fix.error}")
    lines += verdict_lines(fix.results, indent="    ")
    lines += ["    " + finding_line(f) for r in fix.results for f in r.findings]
    lines += ["    " + line for line in fix.diff.rstrip("\n").splitlines()]
    return lines


def evidence_line(evidence: dict, flag: str = "--fix") -> str:
    if "error" in evidence:
        return f"  {flag}: no run-time evidence (the eager run failed: {headline(evidence['error'])[:200]})"
    return (f"  {flag}: run-time evidence from one eager run: {evidence['functions']} function(s) "
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
            {"code": l.code, "filename": display_path_str(l.path), "row": l.line, "relation": l.relation,
             "fixable": l.fixable}
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
        "layout": v.layout or None,
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
            "written": result.fix.written,
            "exports": result.fix.exports,
            "decompositions": list(result.fix.decompositions),
            "decompositions_written": list(result.fix.decompositions_written),
            "dropped": [
                {"code": d.code, "filename": display_path_str(d.path), "row": d.line, "covers": d.covers, "worse": d.why}
                for d in result.fix.dropped
            ],
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
    parts = ["# onnxfix export report", ""] + _markdown_summary(results)
    for result in results:
        parts += _markdown_target(result)
    return "\n".join(parts) + "\n"


def _markdown_summary(results: list[TargetResult]) -> list[str]:
    """One row per target first: the verdicts (and after `--fix`) before the details."""
    exporters = list(dict.fromkeys(r.verdict.exporter for t in results for r in t.results))
    fixed = any(t.fix for t in results)
    header = ["target", *exporters] + ([f"{e} after fix" for e in exporters] if fixed else [])
    lines = ["| " + " | ".join(header) + " |", "|---" * len(header) + "|"]
    for t in results:
        before = {r.verdict.exporter: r.verdict.verdict for r in t.results}
        after = {r.verdict.exporter: r.verdict.verdict for r in t.fix.results} if t.fix else {}
        cells = [_cell(t.target.name)] + [before.get(e, "-") for e in exporters]
        cells += [after.get(e, "-") for e in exporters] if fixed else []
        lines.append("| " + " | ".join(cells) + " |")
    return lines + [""]


def code_span(text: str) -> str:
    """``text`` as Markdown inline code, whatever backticks it holds (CommonMark: a fence one
    backtick longer than the longest run inside, padded when the text starts or ends with one)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def dynamic_text(dynamic: dict) -> str:
    """{"x": {0: "batch", 2: "seq"}} -> 'x: dim 0 (batch), dim 2 (seq)'."""
    return "; ".join(
        f"{name}: " + ", ".join(f"dim {d} ({n})" for d, n in dims.items()) for name, dims in dynamic.items()
    )


def _markdown_target(result: TargetResult) -> list[str]:
    t = result.target
    lines = [f"## {t.name}", "", f"- model: {code_span(str(t.model))}", f"- inputs: {code_span(str(t.inputs))}"]
    if t.probes:
        lines.append(f"- probe inputs: {code_span(str(t.probes))}")
    if t.dynamic:
        lines.append(f"- dynamic: {dynamic_text(t.dynamic)}")
    lines += ["", "| exporter | verdict | " + " | ".join(STAGES) + " | seconds |", "|---" * (len(STAGES) + 3) + "|"]
    for r in result.results:
        stages = r.verdict.stages()
        lines.append(f"| {r.verdict.exporter} | **{r.verdict.verdict}** | " + " | ".join(MARKS[stages[s]] for s in STAGES) + f" | {r.verdict.seconds:.1f} |")
    lines.append("")
    findings = [f for r in result.results for f in r.findings]
    if findings or result.static_findings:
        lines += ["### Findings", ""]
        lines += [f"- {code_span(finding_line(f))}" for f in findings]
        lines += [f"- {code_span(output.text_line(f, False))} (static)" for f in result.static_findings]
        lines.append("")
    for r in result.results:
        lines += _markdown_verdict(r)
    if result.fix:
        lines += ["### After `--fix`", ""]
        lines += [f"- dropped {d.code} at {display_path_str(d.path)}:{d.line}: {', '.join(d.why)}" for d in result.fix.dropped]
        lines += [""] if result.fix.dropped else []
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
