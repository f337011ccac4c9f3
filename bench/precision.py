"""Findings per rule on a corpus, and a reproducible random sample per rule to hand-check.

usage: python bench/precision.py CORPUS_DIR [--seed 7] [--sample 20] [--select ONX1,ONX2]
Prints a Markdown table of findings and fix applicability per rule, then the samples.
"""

from __future__ import annotations

import argparse
import collections
import json
import linecache
import random
import subprocess
import sys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--select", default="ONX")
    args = parser.parse_args()
    command = [sys.executable, "-m", "onnxfix", args.corpus, "--exporters", "dynamo,legacy",
               "--format", "json", "--exit-zero", "--select", args.select]
    findings = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    counts = collections.Counter(f["code"] for f in findings)
    fixes = collections.Counter((f["code"], f["fix"]["applicability"] if f["fix"] else "none") for f in findings)
    print("| rule | findings | safe fix | unsafe fix | no fix |\n|---|---:|---:|---:|---:|")
    for code in sorted(counts):
        print(f"| {code} | {counts[code]} | {fixes[code, 'safe']} | {fixes[code, 'unsafe']} | {fixes[code, 'none']} |")
    rng = random.Random(args.seed)
    for code in sorted(counts):
        of_rule = [f for f in findings if f["code"] == code]
        sample = of_rule if len(of_rule) <= args.sample else rng.sample(of_rule, args.sample)
        print(f"\n## {code}: {len(sample)} of {len(of_rule)}")
        for f in sample:
            line = linecache.getline(f["filename"], f["location"]["row"]).strip()
            print(f"- `{f['filename']}:{f['location']['row']}` `{line[:100]}`")


if __name__ == "__main__":
    main()
