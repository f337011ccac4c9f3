"""The tests' batch workers (fixture_exports.py, flow_batch_worker.py, values_worker.py,
decomposition_exports.py) run as `python -m <script>` from tests/, forked from onnxfix's warm
export server (onnxfix/exporter/forkserver.py) instead of a fresh interpreter each: torch's
import and the exporters' set-up are paid once per test process, not once per batch."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from onnxfix.exporter.isolate import run_worker

HERE = Path(__file__).resolve().parent


def run_script(script: str, args: list[str] | tuple[str, ...] = (), input: str = "", timeout: float = 900,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Like subprocess.run([python, tests/<script>.py, *args], input=..., capture_output=True, text=True)."""
    env = dict(os.environ if env is None else env, PYTHONFAULTHANDLER="1")
    ran = run_worker(script, input, env, timeout, argv=tuple(args), cwd=str(HERE))
    if ran.returncode is None:
        raise subprocess.TimeoutExpired(script, timeout)
    return subprocess.CompletedProcess([script, *args], ran.returncode, "\n".join(ran.lines) + "\n", ran.stderr)
