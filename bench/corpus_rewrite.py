#!/usr/bin/env python3
"""Rewrite the whole real-model corpus and check nothing broke; regenerate docs/reliability.md.

usage: python bench/corpus_rewrite.py [--corpus /work/corpus] [--out docs/reliability.md]
                                      [--subset transformers/models/bert]

The corpus (transformers + timm + torchvision model code, built by
/work/shared/bench/build_corpus.py; CORPUS.tsv marks it complete) is never modified: it is copied
to a temporary folder and onnxfix runs there, in process, through the same ``run()`` the command
line uses, targeting both exporters:

  1. check (report only)                    -> findings per rule before
  2. --write --unsafe-fixes                 -> files changed, fixes applied, wall time
  3. compile() every changed file           -> files that no longer parse (goal 0)
  4. --write --unsafe-fixes again           -> files changed by a second run (goal 0)

A crash is a file whose result is an internal error (a bug in onnxfix); files the corpus itself
cannot parse with this Python are counted apart. Findings per rule are counted before and after
the rewrite; "fixed" is their difference.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from onnxfix._version import __version__  # noqa: E402
from onnxfix.patterns import all_rules  # noqa: E402
from onnxfix.rewriter.runner import run  # noqa: E402

BOTH = frozenset({"dynamo", "legacy"})
INTERNAL = "internal error"
BEHAVIOUR = """## What onnxfix does with bad input

Every problem is reported as `path:line:col: error: message` on stderr, the file is left as it
was, the other files are still checked and fixed, and the exit code is 2.

| input | message (line and column where there is one) |
|---|---|
| syntax error | `syntax error: invalid syntax` at the error's position |
| bytes that are not UTF-8 (no encoding cookie) | `cannot decode as utf-8: invalid start byte` at the first bad byte |
| unknown or contradictory encoding cookie | `bad encoding declaration: ...` |
| binary file named `.py` | `binary file (contains a NUL byte), not Python source` |
| expression nested too deeply for the parser or for the analysis | `syntax error: too many nested parentheses`, `expression too deeply nested to analyse`, `code too deeply nested to analyse` |
| FIFO or device named on the command line | `not a regular file; skipped` (never blocks; in a scanned folder it is skipped silently) |
| unreadable file | `cannot read file: Permission denied` |
| path that does not exist, broken symlink, symlink loop | `no such file or directory`, `broken symbolic link`, `symbolic link loop` |
| symlink loop inside a scanned folder | not followed; no error |
| folder with no Python file | `warning: no Python files found`, exit 0 (like ruff) |
| file changed on disk between reading and writing | `file changed on disk while onnxfix was working; not written` |
| read-only file with `--write` | like ruff and black, which open the file for writing: a user who may not write it gets `file is read-only (no write permission); not written`; root may, and the file keeps its mode |
| a bug in onnxfix on one file | `internal error: ... (please report this bug)` for that file only |

Writes are atomic (a temporary file beside the original, fsync, rename), keep the encoding (PEP
263 cookie or UTF-8), the BOM, each line's ending (inserted lines take the file's first line
ending), the mode and the owner, and go through a symlink to its target. A file without a fix
to apply is never rewritten (byte-identical, same mtime).

"""


def copy_corpus(corpus: Path, dest: Path, subset: str | None) -> Path:
    work = dest / "corpus"
    for package in ("transformers", "timm", "torchvision"):
        source = corpus / package
        if subset and not subset.startswith(package):
            continue
        if subset:
            source = corpus / subset
        target = work / (subset if subset else package)
        shutil.copytree(source, target, symlinks=True)
    return work


def timed_run(work: Path, mode: str):
    start = time.perf_counter()
    result = run([work], mode, unsafe_fixes=True, exporters=BOTH)
    return result, time.perf_counter() - start


def classify_errors(result) -> tuple[list, list]:
    crashes = [r for r in result.errors if INTERNAL in r.error[2]]
    unparsable = [r for r in result.errors if INTERNAL not in r.error[2]]
    return crashes, unparsable


def no_longer_parse(work: Path, changed) -> list[tuple[str, str]]:
    broken = []
    for file_result in changed:
        path = Path(file_result.path)
        if not path.is_absolute():
            path = Path.cwd() / path
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            broken.append((file_result.path, str(exc)))
    return broken


def measure(corpus: Path, subset: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="onnxfix-corpus-") as tmp:
        work = copy_corpus(corpus, Path(tmp), subset)
        os.chdir(tmp)  # short display paths: corpus/transformers/...
        work = Path("corpus")
        checked, check_s = timed_run(work, "check")
        written, write_s = timed_run(work, "write")
        broken = no_longer_parse(work, written.changed)
        after, _ = timed_run(work, "check")
        again, again_s = timed_run(work, "write")
        os.chdir(ROOT)
    return {
        "files": len(checked.files),
        "check": checked,
        "write": written,
        "after": after,
        "again": again,
        "broken": broken,
        "seconds": {"check": check_s, "write": write_s, "again": again_s},
    }


def per_rule(before, after) -> list[tuple[str, str, int, int, int, int]]:
    count_before = Counter(f.code for f in before.findings)
    fixable = Counter(f.code for f in before.findings if f.fix is not None)
    count_after = Counter(f.code for f in after.findings)
    rows = []
    for rule in all_rules():
        b, a = count_before[rule.code], count_after[rule.code]
        rows.append((rule.code, rule.name, b, fixable[rule.code], b - a, a))
    return rows


def render(m: dict, corpus: Path, subset: str | None) -> str:
    check, write, again = m["check"], m["write"], m["again"]
    crashes, unparsable = classify_errors(check)
    write_crashes, _ = classify_errors(write)
    again_crashes, _ = classify_errors(again)
    all_crashes = {r.path: r.error for r in crashes + write_crashes + again_crashes}
    files_with_findings = sum(1 for r in check.files if r.findings)
    goal = lambda n: "met" if n == 0 else "NOT met"  # noqa: E731
    s = m["seconds"]
    lines = [
        "# Reliability: rewriting the real corpus",
        "",
        "Generated by `python bench/corpus_rewrite.py` (do not edit by hand). The corpus is the model",
        "code of transformers, timm and torchvision (`/work/shared/bench/build_corpus.py`); onnxfix",
        "runs on a copy with `--write --unsafe-fixes`, targeting both exporters.",
        "",
        f"onnxfix {__version__}, Python {platform.python_version()}, corpus `{corpus}`"
        + (f", subset `{subset}`" if subset else "") + ".",
        "",
        "## How reliability is checked (one command each)",
        "",
        "| what | command | proves |",
        "|---|---|---|",
        "| this page | `python bench/corpus_rewrite.py` | the real corpus survives `--write --unsafe-fixes`: no crash, everything compiles, a second run changes nothing |",
        "| eager equivalence | `python bench/transformers_equivalence.py` | transformers models built from small configs give bit-identical outputs after the rewrite ([table](transformers-equivalence.md)); CI runs a fast subset: `pytest -m transformers` |",
        "| generated programs | `pytest tests/test_properties.py --hypothesis-profile=long` | on hypothesmith modules and random hazard-laden `nn.Module`s: no crash, rewritten files compile, `--write` is idempotent, no-finding files stay byte-identical, safe fixes keep eager outputs `torch.equal` (the default run draws 30 examples per property) |",
        "| bad input | `pytest tests/test_bad_input.py` | each bad file gets `file:line: error: ...`, exit 2, no write, the other files still fixed; encodings, BOM, line endings, mode and owner kept; a file changed during the run is not overwritten |",
        "| static path | `pytest tests/test_static_path.py` | checking and fixing never run user code nor import torch or numpy; reporting never imports libcst |",
        "",
        BEHAVIOUR,
        "## Goals",
        "",
        "| measure | value | goal |",
        "|---|---:|---|",
        f"| files scanned | {m['files']:,} | |",
        f"| files with findings | {files_with_findings:,} | |",
        f"| files changed by `--write --unsafe-fixes` | {len(write.changed):,} | |",
        f"| fixes applied | {sum(r.fixes_applied for r in write.changed):,} | |",
        f"| crashes (internal errors, any pass) | {len(all_crashes)} | 0: {goal(len(all_crashes))} |",
        f"| rewritten files that no longer compile | {len(m['broken'])} | 0: {goal(len(m['broken']))} |",
        f"| files changed by a second `--write` | {len(again.changed)} | 0: {goal(len(again.changed))} |",
        f"| files the corpus itself cannot parse (reported, skipped) | {len(unparsable)} | |",
        f"| wall time, check | {s['check']:.1f} s | |",
        f"| wall time, `--write --unsafe-fixes` | {s['write']:.1f} s | |",
        f"| wall time, second `--write` | {s['again']:.1f} s | |",
        "",
        "## Findings and fixes per rule",
        "",
        "Findings before the rewrite, how many carry a fix (safe or unsafe), how many the rewrite",
        "removed, and how many are left (reported only: no fix, or a fix that static analysis",
        "cannot prove).",
        "",
        "| code | name | findings | with a fix | fixed | left |",
        "|---|---|---:|---:|---:|---:|",
    ]
    rows = per_rule(check, m["after"])
    for code, name, before, fixable, fixed, left in rows:
        lines.append(f"| {code} | {name} | {before:,} | {fixable:,} | {fixed:,} | {left:,} |")
    totals = [sum(r[i] for r in rows) for i in range(2, 6)]
    lines.append("| **total** | | " + " | ".join(f"**{t:,}**" for t in totals) + " |")
    lines += _listing("Crashes", sorted(all_crashes.items()), lambda p, e: f"`{p}:{e[0]}:{e[1]}`: {e[2]}")
    lines += _listing("Rewritten files that no longer compile", m["broken"], lambda p, e: f"`{p}`: {e}")
    lines += _listing("Files changed by a second run", [(r.path, None) for r in again.changed], lambda p, _: f"`{p}`")
    lines += _listing(
        "Files the corpus itself cannot parse", [(r.path, r.error) for r in unparsable],
        lambda p, e: f"`{p}:{e[0]}:{e[1]}`: {e[2]}",
    )
    lines += ["", "## Files changed", ""]
    lines += [f"- `{r.path}`: {r.fixes_applied} fix(es)" for r in sorted(write.changed, key=lambda r: r.path)]
    return "\n".join(lines) + "\n"


def _listing(title, items, fmt) -> list[str]:
    if not items:
        return []
    return ["", f"## {title}", ""] + [f"- {fmt(p, e)}" for p, e in items]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(os.environ.get("ONNXFIX_CORPUS", "/work/corpus")))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "reliability.md")
    parser.add_argument("--subset", help="one folder of the corpus, e.g. transformers/models/bert")
    args = parser.parse_args()
    if not (args.corpus / "CORPUS.tsv").exists():
        print(f"error: {args.corpus}/CORPUS.tsv not found: the corpus is not built", file=sys.stderr)
        return 2
    corpus = args.corpus.resolve()
    measured = measure(corpus, args.subset)
    text = render(measured, corpus, args.subset)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text.split("## Findings")[0])
    crashes = len({r.path for key in ("check", "write", "again") for r in classify_errors(measured[key])[0]})
    return 0 if not (crashes or measured["broken"] or measured["again"].changed) else 1


if __name__ == "__main__":
    sys.exit(main())
