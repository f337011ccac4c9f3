"""The HTML export report (`--report x.html`) and the notebook view (ExportResult._repr_html_):
self-contained, every value escaped. Output only; no decisions are made here.
"""

from __future__ import annotations

import html

from onnxfix.exporter.locations import ExportFinding
from onnxfix.exporter.render import MARKS, _detail, _fmt, decompose_hint_line, display_path_str
from onnxfix.exporter.result import STAGES
from onnxfix.exporter.session import ExporterResult, TargetResult

# ---- HTML report (--report x.html, and ExportResult._repr_html_) -----------------------------

CSS = """
.onnxfix{font-family:system-ui,sans-serif;line-height:1.4;max-width:80em}
.onnxfix table{border-collapse:collapse;margin:.5em 0 1em}
.onnxfix th,.onnxfix td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
.onnxfix th{background:#f3f3f3}
.onnxfix .OK,.onnxfix .ok{color:#1a7f37;font-weight:600}
.onnxfix .bad,.onnxfix .FAILED{color:#cf222e;font-weight:600}
.onnxfix pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre}
.onnxfix .root{background:#fff3b0;font-weight:600}
.onnxfix .add{color:#1a7f37}.onnxfix .del{color:#cf222e}
"""
EXCERPT_CONTEXT = 3  # lines shown above and below a finding's root line


def html_report(results: list[TargetResult]) -> str:
    """A self-contained page: inline CSS, no script, nothing fetched; every value escaped."""
    return (
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>onnxfix export report</title>"
        f"<style>{CSS}</style></head>\n<body>\n{html_fragment(results, heading=True)}\n</body></html>\n"
    )


def html_fragment(results: list[TargetResult], heading: bool = False) -> str:
    parts = ['<div class="onnxfix">']
    if not heading:
        parts.append(f"<style>{CSS}</style>")  # a notebook cell: the same look, scoped by the class
    else:
        parts.append("<h1>onnxfix export report</h1>")
    for result in results:
        parts += _html_target(result)
    ok = sum(1 for r in results for e in r.final if e.verdict.ok)
    total = sum(len(r.final) for r in results)
    parts.append(f"<p><b>{ok} of {total} export(s) OK.</b></p></div>")
    return "\n".join(parts)


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _table(css: str, header: tuple[str, ...], rows: list[list[str]]) -> str:
    """rows hold HTML already escaped cell by cell."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<table class="{css}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _html_target(result: TargetResult) -> list[str]:
    t = result.target
    parts = [f"<h2>{_e(t.name)}</h2>", "<p>model: <code>" + _e(t.model) + "</code>"
             + (f" &middot; inputs: <code>{_e(t.inputs)}</code>" if t.inputs else "") + "</p>"]
    parts.append(_verdict_table(result.results))
    findings = [f for r in result.results for f in r.findings]
    if findings:
        parts += ["<h3>Findings</h3>", _findings_table(findings)]
        parts += [_excerpt(f) for f in findings]
    if result.static_findings:
        parts += ["<h3>Static findings</h3>", _static_table(result.static_findings)]
    if result.decompose_hint:
        parts.append(f"<p>{_e(decompose_hint_line(result.decompose_hint))}</p>")
    for r in result.results:
        parts += _html_verdict(r)
    if result.fix:
        parts += _html_fix(result)
    return parts


def _verdict_table(results: list[ExporterResult]) -> str:
    rows = []
    for r in results:
        v, stages = r.verdict, r.verdict.stages()
        rows.append([_e(v.exporter), f'<span class="{"OK" if v.ok else "bad"}">{_e(v.verdict)}</span>']
                    + [f'<span class="{_e(MARKS[stages[s]])}">{_e(MARKS[stages[s]])}</span>' for s in STAGES]
                    + [_e(f"{v.seconds:.1f}"), _e(_detail(v))])
    return _table("verdicts", ("exporter", "verdict", *STAGES, "seconds", "detail"), rows)


def _findings_table(findings: list[ExportFinding]) -> str:
    rows = []
    for f in findings:
        where = f"{display_path_str(f.location.path)}:{f.location.line}:{f.location.col}"
        links = ", ".join(f"{l.code} at {display_path_str(l.path)}:{l.line}" + (" (likely)" if l.relation == "same-file" else "")
                          + ("" if l.fixable else " (no automatic fix)") for l in f.fixed_by)
        rows.append([_e(f.code), _e(f.exporter), f"<code>{_e(where)}</code>", _e(f.message), _e(links or "-")])
    return _table("findings", ("code", "exporter", "location", "message", "fixed by"), rows)


def _static_table(findings) -> str:
    rows = [[_e(f.code), f"<code>{_e(f'{f.path}:{f.line}:{f.col}')}</code>", _e(f.full_message()),
             _e("yes" if f.fix else "-")] for f in findings]
    return _table("static", ("code", "location", "message", "fix"), rows)


def _excerpt(finding: ExportFinding) -> str:
    """The source around the root line, the line itself marked."""
    loc = finding.location
    try:
        lines = open(loc.path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return ""
    first = max(1, loc.line - EXCERPT_CONTEXT)
    shown = []
    for number in range(first, min(len(lines), loc.line + EXCERPT_CONTEXT) + 1):
        text = _e(f"{number:>5}  {lines[number - 1]}")
        shown.append((f'<span class="root">{text}</span>' if number == loc.line else text) + "\n")
    title = f"{finding.code} [{finding.exporter}] {display_path_str(loc.path)}:{loc.line}"
    return f'<p><b>{_e(title)}</b></p><pre class="excerpt">{"".join(shown)}</pre>'


def _html_verdict(r: ExporterResult, when: str = "") -> list[str]:
    v = r.verdict
    parts = [f"<h3>{_e(v.exporter)}: {_e(v.verdict)}{_e(f' ({when})' if when else '')}</h3>"]
    if v.onnx_path and v.ok:
        parts.append(f"<p>ONNX file: <code>{_e(v.onnx_path)}</code></p>")
    if v.layout:
        parts.append(f"<p>Exported as a {_e(v.layout)}</p>")
    if v.error:
        parts.append(f'<pre class="error">{_e(v.error.strip()[:4000])}</pre>')
    if v.probes:
        rows = []
        for p in v.probes:
            for o in p.outputs or [None]:
                ok = p.ok if o is None else o.ok
                rows.append([_e(p.probe), _e("-" if o is None else o.index),
                             _e(_fmt(None if o is None else o.max_abs)), _e(_fmt(None if o is None else o.max_rel)),
                             f'<span class="{"ok" if ok else "bad"}">{"yes" if ok else "NO"}</span>',
                             _e((p.note if o is None else o.note) or "")])
        parts.append(_table("inputs", ("input", "output", "max abs error", "max rel error", "ok", "note"), rows))
    if v.op_histogram:
        ops = sorted(v.op_histogram.items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append(_table("ops", ("ONNX operator", "count"), [[_e(op), _e(n)] for op, n in ops]))
    return parts


def _html_fix(result: TargetResult) -> list[str]:
    fix = result.fix
    parts = ["<h3>After fix</h3>"]
    if fix.error or not (fix.diff or fix.decompositions):
        return parts + [f"<p>{_e(fix.error or 'no static fix applies; verdicts unchanged')}</p>"]
    if fix.decompositions:
        parts.append(f"<p>{_e('exported with decompositions of ' + ', '.join(fix.decompositions))}</p>")
    rows = [[_e(b.verdict.exporter), _e(b.verdict.verdict), _e(a.verdict.verdict)]
            for b, a in zip(result.results, fix.results)]
    parts.append(_table("fix", ("exporter", "before", "after"), rows))
    lines = []
    for line in fix.diff.rstrip("\n").splitlines():
        css = "add" if line.startswith("+") and not line.startswith("+++") else "del" if line.startswith("-") and not line.startswith("---") else ""
        lines.append(f'<span class="{css}">{_e(line)}</span>' if css else _e(line))
    parts.append('<pre class="diff">' + "\n".join(lines) + "</pre>")
    for r in fix.results:
        parts += _html_verdict(r, "after fix")
    return parts
