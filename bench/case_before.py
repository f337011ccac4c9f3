"""Before-fix export verdicts of corpus cases, and nothing about onnxfix's rules.

For whoever writes a blind case (tests/realworld/, written from its public report alone): it checks
that the case loads, runs eagerly on every input set, and fails under at least one exporter, without
showing what onnxfix would report or fix (that would let the case be tuned to the catalog).

Usage: python bench/case_before.py tests/realworld/CASE.py [...]
Prints per case: `name: dynamo VERDICT (detail) | legacy VERDICT (detail)`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realworld  # noqa: E402


def before_row(path: Path) -> str:
    meta = realworld.case_meta(path)
    try:
        realworld.eager_outputs(path, "before")
    except Exception as exc:  # a case must run eagerly on every input set
        return f"{path.stem}: EAGER-FAILS {type(exc).__name__}: {exc}"[:400]
    cells = []
    for exporter in realworld.EXPORTERS:
        v = realworld.export_verdict(path, exporter, meta["DYNAMIC"], isolated=True)
        cells.append(f"{exporter} {v['verdict']}" + (f" ({v['error']})" if v["error"] else ""))
    return f"{path.stem}: " + " | ".join(cells)


def main(argv: list[str]) -> int:
    for name in argv:
        print(before_row(Path(name).resolve()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
