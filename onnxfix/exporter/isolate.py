"""Run one export + verification in a child process with a timeout.

The dynamo exporter segfaults on some models (``x.data * 2 + x`` on torch 2.13); in a child
process that is a CRASH verdict and onnxfix carries on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

from onnxfix.exporter.verify import CRASH, EXPORT_FAILS, TIMEOUT, Verdict

DEFAULT_TIMEOUT = 600.0


@dataclass
class ExportRequest:
    model: str  # path/to/file.py:factory (a callable returning a Module, or a Module class)
    inputs: str  # path/to/file.py:callable returning the example inputs (a tuple)
    exporter: str = "dynamo"
    probes: str | None = None  # path:callable returning a list of input tuples
    dynamic: dict[int, dict[int, str]] = field(default_factory=dict)
    opset: int | None = None
    out: str | None = None
    generate_probes: bool = True


def run_isolated(request: ExportRequest, timeout: float = DEFAULT_TIMEOUT) -> Verdict:
    payload = json.dumps(request.__dict__)
    env = dict(os.environ, PYTHONFAULTHANDLER="1")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "onnxfix.exporter.worker"],
            input=payload, capture_output=True, text=True, timeout=timeout, env=env,
        )
    except subprocess.TimeoutExpired:
        return Verdict(request.exporter, TIMEOUT, error=f"export did not finish in {timeout:.0f} s")
    marker = "ONNXFIX-RESULT "
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(marker):
            return Verdict.from_json(json.loads(line[len(marker):]))
    if proc.returncode < 0 or proc.returncode in (134, 139):
        detail = proc.stderr.strip().splitlines()[-12:]
        return Verdict(request.exporter, CRASH, error=f"exporter process killed (signal {-proc.returncode}):\n" + "\n".join(detail))
    return Verdict(request.exporter, EXPORT_FAILS, error=f"worker failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
