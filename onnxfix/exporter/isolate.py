"""Run one export + verification in a child process with a timeout.

The dynamo exporter segfaults on some models (``x.data * 2 + x`` on torch 2.13); in a child
process that is a CRASH verdict and onnxfix carries on. This module does not import torch.
The child reports the stage it enters as ``ONNXFIX-STAGE <stage>`` lines and its result as one
``ONNXFIX-RESULT <json>`` line on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from onnxfix.config import DYNAMO
from onnxfix.exporter import forkserver
from onnxfix.exporter.result import CRASH, EXPORT_FAILS, TIMEOUT, Verdict

DEFAULT_TIMEOUT = 600.0
SIGNALS = {11: "segmentation fault", 6: "abort", 9: "killed", 7: "bus error", 8: "floating point exception"}
RESULT_MARKER = "ONNXFIX-RESULT "
STAGE_MARKER = "ONNXFIX-STAGE "


@dataclass
class ExportRequest:
    model: str  # path/to/file.py:factory (a callable returning a Module, or a Module class)
    inputs: str  # path/to/file.py:callable returning the example inputs (a tuple)
    exporter: str = "dynamo"
    probes: str | None = None  # path:callable returning a list of input tuples
    # {input index or forward parameter name: {dim: name}}; dims sharing a name are equal
    dynamic: dict[str, dict[int, str]] = field(default_factory=dict)
    opset: int | None = None
    out: str | None = None
    generate_probes: bool = True
    sys_path: list[str] = field(default_factory=list)  # extra import folders (for fixed copies)
    decompose: list[str] | None = None  # onnxfix decompositions applied while exporting ([] = all)
    # onnxfix.export on a live model: a torch.save file holding the model (or its class and
    # state dict) and the inputs, written by onnxfix.api; model/inputs then only name the source
    live: str | None = None
    # module name -> file to load it from before unpickling ("__main__": the user's script, run
    # as "__mp_main__" like multiprocessing's spawn does; a fixed copy under --fix)
    modules: dict[str, str] = field(default_factory=dict)


def run_isolated(
    request: ExportRequest,
    timeout: float = DEFAULT_TIMEOUT,
    on_stage: Callable[[str], None] = lambda stage: None,
    on_tick: Callable[[], None] = lambda: None,
) -> Verdict:
    started = time.monotonic()
    verdict = _run(request, timeout, on_stage, on_tick)
    verdict.seconds = verdict.seconds or round(time.monotonic() - started, 2)
    return verdict


def _run(request, timeout, on_stage, on_tick) -> Verdict:
    env = dict(os.environ, PYTHONFAULTHANDLER="1", PYTHONUNBUFFERED="1", ONNXFIX_WORKER="1")
    ran = run_worker("onnxfix.exporter.worker", json.dumps(asdict(request)), env, timeout, on_stage, on_tick,
                     dynamo=request.exporter == DYNAMO)
    if ran.returncode is None:
        return Verdict(request.exporter, TIMEOUT, error=f"export did not finish in {timeout:g} s", failed_stage=_last_stage(ran.lines))
    return _result(request, ran.returncode, ran.lines, ran.stderr)


@dataclass
class WorkerRun:
    returncode: int | None  # None: killed at the timeout
    lines: list[str]  # its standard output
    stderr: str


def run_worker(module: str, payload: str, env: dict[str, str], timeout: float,
               on_stage: Callable[[str], None] = lambda stage: None,
               on_tick: Callable[[], None] = lambda: None, argv: tuple[str, ...] = (),
               cwd: str | None = None, dynamo: bool = True) -> WorkerRun:
    """``python -m module *argv`` in ``cwd`` (default: this process's) with ``payload`` on its
    standard input: forked from the warm server when there is one (forkserver.py), else a fresh
    interpreter; the same run either way. Without ``dynamo`` (a legacy export, an eager run) the
    warm server need not have set up the dynamo exporter first."""
    cwd = cwd or os.getcwd()
    server = forkserver.server_for(env)
    if server is not None:
        ran = _run_forked(server, module, list(argv), cwd, payload, env, timeout, on_stage, on_tick, dynamo)
        if ran is not None:
            return ran
    return _run_subprocess(module, list(argv), cwd, payload, env, timeout, on_stage, on_tick)


def _run_subprocess(module, argv, cwd, payload, env, timeout, on_stage, on_tick) -> WorkerRun:
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *argv], stdin=subprocess.PIPE, cwd=cwd,
            stdout=subprocess.PIPE, stderr=stderr, text=True, encoding="utf-8", errors="replace", env=env,
        )
        lines: list[str] = []
        reader = threading.Thread(target=_read_lines, args=(proc.stdout, lines, on_stage), daemon=True)
        reader.start()
        proc.stdin.write(payload)
        proc.stdin.close()
        finished = _wait(proc, timeout, on_tick)
        reader.join()
        stderr.seek(0)
        return WorkerRun(proc.returncode if finished else None, lines, stderr.read())


def _run_forked(server, module, argv, cwd, payload, env, timeout, on_stage, on_tick, dynamo) -> WorkerRun | None:
    with tempfile.TemporaryDirectory(prefix="onnxfix-worker-") as folder:
        paths = {name: os.path.join(folder, name) for name in ("stdin", "stdout", "stderr")}
        with open(paths["stdin"], "w", encoding="utf-8") as stdin:
            stdin.write(payload)
        pid = server.start(module, argv, cwd, env, **paths, dynamo=dynamo)
        if pid is None:
            return None
        output = _Tail(paths["stdout"], on_stage)
        started = time.monotonic()
        returncode = None
        while returncode is None:
            returncode = server.wait(pid, forkserver.poll_interval(started))
            output.read()
            if returncode is None and time.monotonic() - started >= timeout:
                forkserver.kill(pid)
                server.wait(pid, 10)
                break
            if returncode is None:
                on_tick()
        output.read(final=True)
        with open(paths["stderr"], encoding="utf-8", errors="replace") as stderr:
            return WorkerRun(returncode, output.lines, stderr.read())


class _Tail:
    """The lines a forked worker has written to its stdout file so far, stage lines reported
    as they arrive (a subprocess's pipe is read by a thread instead)."""

    def __init__(self, path: str, on_stage: Callable[[str], None]):
        self.path, self.on_stage = path, on_stage
        self.offset, self.partial, self.lines = 0, "", []

    def read(self, final: bool = False) -> None:
        try:
            with open(self.path, "rb") as stream:
                stream.seek(self.offset)
                chunk = stream.read()
        except FileNotFoundError:
            return
        self.offset += len(chunk)
        *complete, self.partial = (self.partial + chunk.decode("utf-8", "replace")).split("\n")
        if final and self.partial:
            complete, self.partial = [*complete, self.partial], ""
        for line in complete:
            _take_line(line, self.lines, self.on_stage)


def _read_lines(stream, lines: list[str], on_stage: Callable[[str], None]) -> None:
    for line in stream:
        _take_line(line.rstrip("\n"), lines, on_stage)


def _take_line(line: str, lines: list[str], on_stage: Callable[[str], None]) -> None:
    """One line of a worker's output, whichever way it came (a pipe, or a forked worker's file)."""
    lines.append(line)
    if line.startswith(STAGE_MARKER):
        on_stage(line[len(STAGE_MARKER):].strip())


def _wait(proc: subprocess.Popen, timeout: float, on_tick: Callable[[], None]) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        try:
            proc.wait(timeout=min(0.5, max(0.01, deadline - time.monotonic())))
            return True
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                proc.kill()
                proc.wait()
                return False
            on_tick()


def _last_stage(lines: list[str]) -> str:
    stages = [line[len(STAGE_MARKER):].strip() for line in lines if line.startswith(STAGE_MARKER)]
    return stages[-1] if stages else "load"


def _result(request: ExportRequest, returncode: int, lines: list[str], stderr: str) -> Verdict:
    for line in reversed(lines):
        if line.startswith(RESULT_MARKER):
            return Verdict.from_json(json.loads(line[len(RESULT_MARKER):]))
    stage = _last_stage(lines)
    if returncode < 0 or returncode in (134, 139):
        # faulthandler's dump: the Python stack at the crash (most recent call first)
        detail = [line for line in stderr.strip().splitlines() if line.strip()][:40]
        signal = -returncode if returncode < 0 else returncode - 128
        name = SIGNALS.get(signal, f"signal {signal}")
        return Verdict(request.exporter, CRASH, failed_stage=stage,
                       error=f"the exporter process died ({name}) during {stage}\n" + "\n".join(detail))
    return Verdict(request.exporter, EXPORT_FAILS, failed_stage=stage,
                   error=f"worker failed (exit {returncode}) during {stage}:\n{stderr[-3000:]}")


def run_json_worker(module: str, request: dict, timeout: float) -> dict:
    """Run ``python -m module`` with ``request`` as JSON on stdin; its RESULT_MARKER line, or
    {"error": ...} when it died or timed out (never raises: its caller carries on without)."""
    env = dict(os.environ, PYTHONFAULTHANDLER="1", PYTHONUNBUFFERED="1")
    ran = run_worker(module, json.dumps(request), env, timeout, dynamo=False)  # eager runs
    if ran.returncode is None:
        return {"error": f"did not finish in {timeout:g} s"}
    for line in reversed(ran.lines):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER):])
    return {"error": f"exit {ran.returncode}: {ran.stderr.strip()[-500:]}"}
