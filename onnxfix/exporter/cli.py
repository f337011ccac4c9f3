"""`onnxfix export`: argument parsing and output; the work is in plan.py and session.py."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from onnxfix.config import load_settings
from onnxfix.exporter import plan, render, render_html
from onnxfix.exporter.session import FIX_TEMPORARY, FIX_WRITE, run_target
from onnxfix.patterns.selectors import rule_selectors

EXIT_OK, EXIT_NOT_OK, EXIT_ERROR = 0, 1, 2

DESCRIPTION = """\
Export a PyTorch model to ONNX with torch.onnx (dynamo and/or legacy TorchScript exporter),
check the file with onnx.checker, run it in onnxruntime and compare every output with eager
PyTorch on the export inputs, on your probe inputs and on generated ones (re-drawn values,
other sizes of dynamic dims). Failures are mapped back to your file:line as ONX9xx findings,
linked to the static rule that fixes them.

WARNING: unlike `onnxfix check`, this command IMPORTS AND RUNS YOUR CODE (the model file, its
imports, the factory and the input functions), in child processes. Run it only on code you trust.

Without TARGET, runs every target of [tool.onnxfix.export] in pyproject.toml.
Exit codes: 0 every export OK, 1 some verdict is not OK, 2 usage, config or load error."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="onnxfix export", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("target", nargs="?", metavar="TARGET",
                   help="path/to/file.py:factory (a callable returning an nn.Module, or a Module class "
                        "that takes no arguments), or the name of a configured target")
    p.add_argument("--inputs", metavar="PATH:CALLABLE",
                   help="returns the example inputs (a tuple); default: example_inputs() in TARGET's file")
    p.add_argument("--probe-inputs", metavar="PATH:CALLABLE",
                   help="returns a list of other input tuples to check; default: probe_inputs() in TARGET's file if defined")
    p.add_argument("--dynamic", action="append", default=[], metavar="INPUT:DIM[=NAME],...",
                   help="mark dims dynamic; INPUT is an index or forward's parameter name, e.g. x:0=batch "
                        "or 1:0=batch,2=seq (same NAME = same size). Repeatable. Default: DYNAMIC in TARGET's file")
    p.add_argument("--exporter", choices=("dynamo", "legacy", "both"),
                   help="default: [tool.onnxfix] exporters, else dynamo")
    p.add_argument("--opset", type=int, help="ONNX opset (default: the exporter's)")
    p.add_argument("-o", "--output", metavar="OUT.onnx",
                   help="keep the exported model here (with --exporter both: OUT.dynamo.onnx, OUT.legacy.onnx)")
    p.add_argument("--decompose", action="store_true",
                   help="export with onnxfix's decompositions of the operators the exporters reject "
                        "(torch.linalg.inv, cumprod, searchsorted, ...: `onnxfix rules` ONX5xx), "
                        "without changing the source; eager PyTorch still checks the original ops")
    p.add_argument("--decompose-ops", metavar="OPS",
                   help="only these decompositions, comma-separated (cumprod,linalg_inv,...); implies --decompose")
    p.add_argument("--timeout", type=float, default=None, help="seconds per export (default 600)")
    p.add_argument("--fix", action="store_true",
                   help="apply the static fixes to a temporary copy and export again, keeping a fix only if no "
                        "exporter's verdict gets worse (OK stays OK, a loud failure never turns SILENTLY-WRONG); "
                        "show verdicts before/after, the fixes dropped and the diff")
    p.add_argument("--write", action="store_true",
                   help="like --fix, then write the fixes kept into the model file (only if no verdict is worse)")
    p.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply unsafe fixes")
    p.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--report", metavar="PATH", type=Path, help="write a report: HTML (tables, source excerpts, fix diff, ONNX op counts) when PATH ends in .html, else Markdown")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it is shown only on a terminal)")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        targets = plan.plan_targets(_request(args), load_settings(Path.cwd(), rule_selectors))
    except plan.PlanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if not targets:
        print("error: no TARGET given and no [[tool.onnxfix.export.targets]] configured; "
              "see `onnxfix export --help`", file=sys.stderr)
        return EXIT_ERROR
    from onnxfix.exporter.progress import make_progress

    fix = FIX_WRITE if args.write else FIX_TEMPORARY if args.fix else None
    exports = sum(len(t.exporters) for t in targets) * (2 if fix else 1)
    progress = make_progress(exports, enabled=not args.no_progress and args.format == "text")
    try:
        results = [run_target(t, progress, fix, args.unsafe_fixes) for t in targets]
    finally:
        progress.close()
    code = EXIT_ERROR if any(r.load_failed for r in results) else EXIT_OK if all(r.ok for r in results) else EXIT_NOT_OK
    if args.format == "json":
        print(render.json_report(results, code))
    else:
        print(render.text_report(results, bool(args.unsafe_fixes)))
    if args.report:
        text = render_html.html_report(results) if args.report.suffix.lower() in (".html", ".htm") else render.markdown_report(results)
        args.report.write_text(text, encoding="utf-8")
        if args.format == "text":
            print(f"Report written to {args.report}")
    return code


def _request(args) -> plan.Request:
    decompose = None
    if args.decompose or args.decompose_ops:
        decompose = tuple(op.strip() for op in (args.decompose_ops or "").split(",") if op.strip())
    exporters = None
    if args.exporter:
        exporters = ("dynamo", "legacy") if args.exporter == "both" else (args.exporter,)
    return plan.Request(
        target=args.target, inputs=args.inputs, probe_inputs=args.probe_inputs, dynamic=tuple(args.dynamic or ()),
        output=args.output, exporters=exporters, opset=args.opset, timeout=args.timeout, decompose=decompose,
    )
