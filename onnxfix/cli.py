"""Command line: argument parsing and output only; the work is in rewriter/ and exporter/."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from onnxfix import output
from onnxfix._version import __version__
from onnxfix.config import ConfigError, InvalidValue, exporter_names
from onnxfix.patterns import all_rules, rule_by_code
from onnxfix.patterns.selectors import rule_selectors

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("check", "rule", "rules", "export")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else "check"
    named = bool(argv) and argv[0] == command
    if named:
        argv = argv[1:]
    _reader_left.code = EXIT_CLEAN
    try:
        code = _command(command, argv, prog="onnxfix check" if named else "onnxfix")
        if command != "export":
            sys.stdout.flush()  # here, not at exit: a reader gone (`| head -1`) is handled below
        return code
    except (ConfigError, InvalidValue) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        if command == "export":  # its exit code (the verdicts) is not known here: unchanged
            raise
        return _reader_left()


def _command(command: str, argv: list[str], prog: str) -> int:
    if command == "rule":
        return _rule(argv)
    if command == "rules":
        return _rules(argv)
    if command == "export":
        from onnxfix.exporter.cli import main as export_main  # imports torch lazily

        return export_main(argv)
    return _check(argv, prog)  # prog: `onnxfix check --help` shows its own usage


def _reader_left() -> int:
    """stdout's reader closed the pipe (`onnxfix . | head -1`): not an error. Later writes,
    and the flush at exit, go to devnull (Python's documented pattern), and the exit code is
    the one the run had earned (set in ``_reader_left.code`` before the report is printed)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return _reader_left.code


def check_parser(prog: str = "onnxfix") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Find and fix PyTorch code that breaks ONNX export. Reads source only: never imports "
            "or runs your code. Subcommands: check (default), rule CODE, rules [--export-codes], "
            "export; `onnxfix SUBCOMMAND --help` describes each."
        ),
    )
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    mode.add_argument("--write", "--fix", dest="write", action="store_true", help="apply fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true", default=None, help="also apply/show unsafe fixes")
    parser.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false", help="override config")
    parser.add_argument(
        "--select", type=_codes, help="comma-separated codes or prefixes (e.g. ONX2,ONX301; any case); one "
        "that matches no rule is an error"
    )
    parser.add_argument("--ignore", type=_codes, help="comma-separated codes or prefixes to skip")
    parser.add_argument(
        "--exporters", type=_codes, help="exporters targeted: dynamo, legacy, or both (= dynamo,legacy); "
        "default: config's exporters, else dynamo"
    )
    parser.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    parser.add_argument("--quiet", "-q", action="store_true", help="print findings only, no summary")
    parser.add_argument("--force-exclude", action="store_true", help="apply exclude to files named explicitly")
    parser.add_argument("--no-cache", "-n", action="store_true", help="neither read nor write the result cache")
    parser.add_argument("--cache-dir", type=Path, help="cache folder (default: .onnxfix_cache next to the config)")
    parser.add_argument("--jobs", "-j", type=int, help="processes to use (default: one per core)")
    parser.add_argument("--version", action="version", version=f"onnxfix {__version__}")
    return parser


def _codes(value: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in value.split(",") if v.strip())


def _check(argv: list[str], prog: str = "onnxfix") -> int:
    from onnxfix.api import run_static  # the Python API's entry: onnxfix.check/fix run it too

    args = check_parser(prog).parse_args(argv)
    if args.diff and args.format == "sarif":  # SARIF must stay one valid document
        print("error: --diff cannot be combined with --format sarif", file=sys.stderr)
        return EXIT_ERROR
    mode = "diff" if args.diff else "write" if args.write else "check"
    select = None if args.select is None else rule_selectors(args.select, "--select")
    ignore = None if args.ignore is None else rule_selectors(args.ignore, "--ignore")
    exporters = None if args.exporters is None else exporter_names(args.exporters, "--exporters")
    result = run_static(
        args.paths,
        mode,
        force_exclude=args.force_exclude,
        use_cache=not args.no_cache,
        cache_dir=args.cache_dir,
        jobs=args.jobs,
        progress=not args.quiet,
        require_rules=True,
        select=select,
        ignore=ignore,
        unsafe_fixes=args.unsafe_fixes,
        exporters=exporters,
    )
    _reader_left.code = _exit_code(result, mode, args.exit_zero)
    unsafe = bool(result.settings and result.settings.unsafe_fixes)
    _print_errors(result)
    findings = result.findings
    diffs = None
    if mode == "diff":
        diffs = [(r.path, output.unified_diff(r.path, r.original_text, r.fixed_text)) for r in result.changed]
        if args.format != "json":  # with json, the diffs are part of the one JSON document
            sys.stdout.write("".join(diff for _, diff in diffs))
    if args.format == "json":
        print(output.json_report(findings, diffs))
    elif args.format == "sarif":
        print(output.sarif_report(findings, all_rules()))
    elif args.format == "github":
        for finding in findings:
            print(output.github_line(finding))
    elif mode != "diff":
        for finding in findings:
            print(output.text_line(finding, unsafe))
    if not args.quiet and args.format == "text":
        _print_summary(result, mode, unsafe)
    return _exit_code(result, mode, args.exit_zero)


def _print_errors(result) -> None:
    from onnxfix.rewriter.discover import missing_reason

    for missing in result.missing:
        print(output.error_line(str(missing), 1, 1, missing_reason(missing)), file=sys.stderr)
    for failed in result.errors:
        print(output.error_line(failed.path, *failed.error), file=sys.stderr)


def _print_summary(result, mode: str, unsafe: bool) -> None:
    if not result.files and not result.missing:
        print("warning: no Python files found", file=sys.stderr)
    exporters = result.settings or ()  # the Settings: the summary says why, when inferred
    counts = dict(errors=len(result.errors) + len(result.missing), files=len(result.files))
    if mode == "check":
        print(output.summary(result.findings, unsafe, exporters, **counts))
        return
    fixed = sum(r.fixes_applied for r in result.files)
    text = output.fix_summary(result.findings, fixed, len(result.changed), unsafe, exporters, mode == "diff", **counts)
    print(text, file=sys.stderr if mode == "diff" else sys.stdout)  # stdout is the diff


def _exit_code(result, mode: str, exit_zero: bool) -> int:
    if result.errors or result.missing:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    if mode == "diff":
        return EXIT_FINDINGS if result.changed else EXIT_CLEAN
    if mode == "write":
        return EXIT_FINDINGS if result.changed or result.findings else EXIT_CLEAN
    return EXIT_FINDINGS if result.findings else EXIT_CLEAN


def rule_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxfix rule",
        description="Print a rule's documentation: what it finds, why it breaks export, an example "
                    "and its fix. Also the ONX9xx findings of `onnxfix export`.",
    )
    parser.add_argument("code", metavar="CODE", help="a rule code, e.g. ONX201 (`onnxfix rules` lists them)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="json: the rule's fields and its rendered documentation")
    return parser


def rules_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxfix rules",
        description="List the static rules: code, name, fix availability, fix safety, exporters broken, summary.",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text",
                        help="json: every rule with its fields and documentation")
    parser.add_argument("--export-codes", action="store_true",
                        help="then list the ONX9xx findings of `onnxfix export` (export-time, not static rules)")
    return parser


def _rule(argv: list[str]) -> int:
    args = rule_parser().parse_args(argv)
    code, fmt = args.code, args.format
    rule = rule_by_code(code)
    if rule is None:
        from onnxfix.patterns.export_codes import export_code, render_doc  # ONX9xx: no torch needed

        found = export_code(code)
        if found is not None:
            return _print_rule(found, render_doc(found), fmt)
        print(f"error: unknown rule {code!r}; `onnxfix rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    return _print_rule(rule, rule.doc.render(rule.code, rule.name), fmt)


def _print_rule(rule, text: str, fmt: str) -> int:
    if fmt == "json":
        print(json.dumps(output.rule_json(rule, text), indent=2))
    else:
        print(text, end="")
    return EXIT_CLEAN


def _rules(argv: list[str]) -> int:
    from onnxfix.patterns.export_codes import CODES

    args = rules_parser().parse_args(argv)
    if args.format == "json":  # the ONX9xx export-time findings are not static rules: listed after
        print(output.rules_json(all_rules() + (CODES if args.export_codes else ())))
        return EXIT_CLEAN
    markdown = args.format == "markdown"
    print(output.rules_table(all_rules(), markdown=markdown))
    if args.export_codes:
        print(output.rules_table(CODES, markdown=markdown))
    return EXIT_CLEAN

