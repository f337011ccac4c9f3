"""Command line: argument parsing and output only; the work is in rewriter/ and exporter/."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from onnxfix import __version__, output
from onnxfix.config import ConfigError, InvalidValue, exporter_names, rule_selectors
from onnxfix.patterns import all_rules, rule_by_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("check", "rule", "rules", "export")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv and argv[0] in SUBCOMMANDS else "check"
    if argv and argv[0] == command:
        argv = argv[1:]
    try:
        if command == "rule":
            return _rule(argv)
        if command == "rules":
            return _rules(argv)
        if command == "export":
            from onnxfix.exporter.cli import main as export_main  # imports torch lazily

            return export_main(argv)
        return _check(argv)
    except (ConfigError, InvalidValue) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


def check_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxfix",
        description=(
            "Find and fix PyTorch code that breaks ONNX export. Reads source only: never imports "
            "or runs your code. Subcommands: check (default), rule CODE, rules, export."
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


def _check(argv: list[str]) -> int:
    from onnxfix.rewriter.runner import run

    args = check_parser().parse_args(argv)
    mode = "diff" if args.diff else "write" if args.write else "check"
    select = None if args.select is None else rule_selectors(args.select, "--select")
    ignore = None if args.ignore is None else rule_selectors(args.ignore, "--ignore")
    exporters = None if args.exporters is None else exporter_names(args.exporters, "--exporters")
    result = run(
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
    unsafe = bool(result.settings and result.settings.unsafe_fixes)
    _print_errors(result)
    findings = result.findings
    if mode == "diff":
        for changed in result.changed:
            sys.stdout.write(output.unified_diff(changed.path, changed.original_text, changed.fixed_text))
    if args.format == "json":
        print(output.json_report(findings))
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
    exporters = result.settings.exporters if result.settings else ()
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


def _rule(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: onnxfix rule CODE", file=sys.stderr)
        return EXIT_ERROR
    rule = rule_by_code(argv[0])
    if rule is None:
        from onnxfix.exporter.codes import export_code, render_doc  # ONX9xx: no torch needed

        found = export_code(argv[0])
        if found is not None:
            print(render_doc(found), end="")
            return EXIT_CLEAN
        print(f"error: unknown rule {argv[0]!r}; `onnxfix rules` lists them", file=sys.stderr)
        return EXIT_ERROR
    print(rule.doc.render(rule.code, rule.name), end="")
    return EXIT_CLEAN


def _rules(argv: list[str]) -> int:
    from onnxfix.exporter.codes import CODES

    markdown = "--format=markdown" in argv or argv[-2:] == ["--format", "markdown"]
    print(output.rules_table(all_rules(), markdown=markdown))
    if "--export-codes" in argv:  # the ONX9xx export-time findings, which are not static rules
        print(output.rules_table(CODES, markdown=markdown))
    return EXIT_CLEAN
