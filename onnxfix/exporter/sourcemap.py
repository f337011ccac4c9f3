"""From what an exporter said to findings at the user's line (ONX9xx), linked to static rules.

Plain text processing, no torch: it reads a Verdict (warnings with filename/lineno, the error
text, traceback frames, the failing node's stack trace, a crash's faulthandler dump).
Which frames are the user's, and the finding types: locations.py.
"""

from __future__ import annotations

import ast
import os
from dataclasses import replace
from pathlib import Path

from onnxfix.exporter.guard_findings import guard_findings, with_origins
from onnxfix.exporter.locations import (
    PY_FRAME,
    TS_FRAME,
    ExportFinding,
    Location,
    StaticLink,
    innermost_user,
    is_user_file,
)
from onnxfix.exporter.result import CRASH, EXPORT_FAILS, ORT_FAILS, SILENTLY_WRONG, TIMEOUT, NodeTrace, Verdict
from onnxfix.patterns.export_codes import BY_CODE
from onnxfix.rewriter.rule import Finding


def anchor(model_spec_path: Path, name: str) -> Location:
    """Where a whole-model finding goes: the factory's def or class line."""
    path = os.path.realpath(model_spec_path)
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return Location(path, 1)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return Location(path, node.lineno, node.col_offset + 1)
    return Location(path, 1)


# ---- warnings (legacy TracerWarnings carry the user's line) ---------------------------------

_TRACER_CODES = (
    ("Converting a tensor to a", "ONX901"),
    ("registered as constants in the trace", "ONX902"),
    ("Iterating over a tensor", "ONX903"),
    ("Using len to get tensor shape", "ONX903"),
)


def warning_findings(verdict: Verdict) -> list[ExportFinding]:
    findings, seen = [], set()
    for warning in verdict.warnings:
        if not is_user_file(warning.get("filename", "")):
            continue
        code = next((c for text, c in _TRACER_CODES if text in warning["message"]), "ONX904")
        location = Location(os.path.realpath(warning["filename"]), int(warning["lineno"]))
        key = (code, location)
        if key not in seen:
            seen.add(key)
            message = f"{warning['category']}: {first_sentence(warning['message'])}"
            findings.append(ExportFinding(code, message, location, verdict.exporter))
    return findings


def first_sentence(text: str) -> str:
    """A TracerWarning's first sentence; "... might cause the trace to be incorrect" (which
    ends the first sentence of some and a later one of others) becomes "(now a constant ...)"."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    cut = line.find(". ")
    sentence = line[:cut] if cut > 0 else line.rstrip(".")
    cut = sentence.find(" might cause the trace to be incorrect")
    if cut > 0:
        return sentence[:cut] + " (now a constant in the trace)"
    return sentence if len(sentence) <= 240 else sentence[:237] + "..."


# ---- verdicts -------------------------------------------------------------------------------

_ERROR_CODES = (
    ("GuardOnDataDependentSymNode", "ONX913"),
    ("Could not guard on data-dependent expression", "ONX913"),
    ("Could not extract specialized integer from data-dependent expression", "ONX913"),
    ("DataDependentOutputException", "ONX913"),
    ("No ONNX function found", "ONX920"),
    ("UnsupportedOperatorError", "ONX920"),
    ("fake tensor in the exported program constant", "ONX912"),
    (".numpy() is not supported", "ONX911"),
    ("invalid __array_struct__", "ONX911"),
    ("Failed to export the model with torch.export", "ONX910"),
    ("TorchExportError", "ONX910"),
    ("ConversionError", "ONX921"),
)


def verdict_findings(verdict: Verdict, fallback: Location) -> list[ExportFinding]:
    """The finding that explains a verdict which is not OK (none for OK and LOAD-FAILS)."""
    kind = verdict.verdict
    if kind == EXPORT_FAILS and verdict.failed_stage == "checker":
        return [ExportFinding("ONX942", headline(verdict.error), fallback, verdict.exporter)]
    if kind == EXPORT_FAILS and verdict.unsupported and "No ONNX function found" in verdict.error:
        return unsupported_findings(verdict, fallback)
    if kind == EXPORT_FAILS:
        code = next((c for text, c in _ERROR_CODES if text in verdict.error), "ONX922")
        where = error_location(verdict) or fallback
        return [ExportFinding(code, headline(verdict.error), where, verdict.exporter)]
    if kind == CRASH:
        frames = [(f, int(n)) for f, n in PY_FRAME.findall(verdict.error)]  # most recent call first
        where = innermost_user(frames, innermost_first=True) or fallback
        return [ExportFinding("ONX930", verdict.error.splitlines()[0], where, verdict.exporter)]
    if kind == TIMEOUT:
        return [ExportFinding("ONX931", verdict.error, fallback, verdict.exporter)]
    first = divergence_findings(verdict)  # the place to look, before the symptom
    if kind == ORT_FAILS:
        where = _trace_location(verdict) or fallback
        probe = next((p for p in verdict.probes if p.probe == verdict.failing_probe), None)
        note = probe.note if probe else verdict.error
        return first + [ExportFinding("ONX941", f"on {verdict.failing_probe or 'load'}: {headline(note)}", where, verdict.exporter)]
    if kind == SILENTLY_WRONG:
        return first + [ExportFinding("ONX940", numerics_message(verdict), fallback, verdict.exporter)]
    return []


def unsupported_findings(verdict: Verdict, fallback: Location) -> list[ExportFinding]:
    """One ONX920 per operator the exporter cannot translate, each at the line calling it."""
    findings = []
    for op in verdict.unsupported:
        where = innermost_user([(f, int(n)) for f, n in PY_FRAME.findall(op.stack)]) or fallback
        message = f"DispatchError: No ONNX function found for {op.op}"
        if op.decomposition:
            message += f"; onnxfix decomposes it: `--decompose-ops {op.decomposition}`"
        finding = ExportFinding("ONX920", message, where, verdict.exporter)
        if all((f.message, f.location) != (message, where) for f in findings):
            findings.append(finding)
    return findings


def divergence_findings(verdict: Verdict) -> list[ExportFinding]:
    """ONX945 at the first user line whose ONNX value differs from eager (divergence.py)."""
    found = verdict.divergence
    if not found.get("node"):
        return []
    where = _location_of(NodeTrace(found["node"], found["stack"], found["style"]))
    if where is None:
        return []
    message = f"first value that differs from PyTorch on {verdict.failing_probe}: {found['node']}: {found['detail']}"
    return [ExportFinding("ONX945", message, where, verdict.exporter)]


def numerics_message(verdict: Verdict) -> str:
    probe = next(p for p in verdict.probes if p.probe == verdict.failing_probe)
    bad = [o for o in probe.outputs if not o.ok]
    if bad and bad[0].max_abs is not None:
        detail = f"output {bad[0].index}: max abs error {bad[0].max_abs:.3g} (rel {bad[0].max_rel:.3g})"
    else:
        detail = probe.note or (f"output {bad[0].index}: {bad[0].note}" if bad else "outputs differ")
    return f"ONNX output differs from PyTorch on {probe.probe}: {detail}" + (f"; {probe.baked}" if probe.baked else "")


def error_location(verdict: Verdict) -> Location | None:
    return (
        _trace_location(verdict)
        or innermost_user([(f, int(n)) for f, n in PY_FRAME.findall(verdict.error)])
        or innermost_user([(f, int(n)) for f, n, _ in verdict.error_frames])
    )


def _trace_location(verdict: Verdict) -> Location | None:
    for trace in verdict.node_traces:
        found = _location_of(trace)
        if found:
            return found
    return None


def _location_of(trace: NodeTrace) -> Location | None:
    if trace.style == "ts":
        return innermost_user([(f, int(n)) for f, n in TS_FRAME.findall(trace.stack)], innermost_first=True)
    return innermost_user([(f, int(n)) for f, n in PY_FRAME.findall(trace.stack)])


def headline(error: str) -> str:
    """The root cause's first line (describe() chains causes with '<-', the root cause last)."""
    parts = [p.strip() for p in error.split("\n  <- ") if p.strip()]
    root = parts[-1] if parts else error
    for part in reversed(parts):  # prefer a cause that says something specific
        if not part.startswith(("TorchExportError", "ConversionError: Failed")):
            root = part
            break
    line = next((ln.strip() for ln in root.splitlines() if ln.strip()), "")
    return line if len(line) <= 240 else line[:237] + "..."


# ---- links to static rules ----------------------------------------------------------------

WHOLE_MODEL = {"ONX930", "ONX940", "ONX911", "ONX912"}
ANY_CAUSE = {"ONX940", "ONX921", "ONX922", "ONX941", "ONX945"}  # any static finding may be the cause


def link(finding: ExportFinding, static: list[Finding]) -> None:
    """Static findings at the same line fix it; otherwise list the likely ones in the file."""
    here = [
        s for s in static
        if os.path.realpath(s.path) == finding.location.path and s.line == finding.location.line
        and finding.exporter in s.exporters
    ]
    if here and finding.location.col == 1:  # warnings carry no column; the static finding does
        finding.location = replace(finding.location, col=min(s.col for s in here))
    relation = "same-line"
    if not here and (finding.code in WHOLE_MODEL or finding.code in ANY_CAUSE):
        related = set(BY_CODE[finding.code].fixed_by)
        here = [s for s in static if finding.exporter in s.exporters and (finding.code in ANY_CAUSE or s.code in related)]
        relation = "same-file"
    links = {StaticLink(s.code, os.path.realpath(s.path), s.line, relation, s.fix is not None) for s in here}
    finding.fixed_by = sorted(links, key=lambda l: (l.path, l.line, l.code))


def findings_for(verdict: Verdict, fallback: Location, static: list[Finding]) -> list[ExportFinding]:
    findings = warning_findings(verdict) + guard_findings(verdict, fallback) + verdict_findings(verdict, fallback)
    for finding in findings:
        link(finding, static)
    with_origins(findings, verdict, static)
    return findings
