"""Workers forked from the warm server (onnxfix/exporter/forkserver.py, zygote.py) run as a fresh
`python -m` would: the same output, exit code, crash signal and timeout, with the caller's
working directory and environment of the moment."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from onnxfix.exporter import forkserver, isolate

HERE = Path(__file__).resolve().parent


@pytest.fixture(params=["forked", "subprocess"])
def how(request, monkeypatch):
    monkeypatch.chdir(HERE)
    monkeypatch.setenv("ONNXFIX_FORKSERVER", "1" if request.param == "forked" else "0")
    return request.param


def run(mode: str, timeout: float = 60, stages: list | None = None, **env) -> isolate.WorkerRun:
    on_stage = stages.append if stages is not None else (lambda stage: None)
    env = dict(os.environ, PYTHONFAULTHANDLER="1", **env)
    return isolate.run_worker("forkserver_job", "payload", env, timeout, on_stage, argv=(mode,))


def test_output_arguments_input_cwd_and_environment(how):
    """The environment of the moment: pytest names each test in PYTEST_CURRENT_TEST, which does
    not start a server of its own."""
    ran = run("echo")
    test = os.environ["PYTEST_CURRENT_TEST"]
    assert (ran.returncode, ran.lines) == (0, ["argv ['echo']", "stdin payload", f"cwd {HERE}", f"test {test}"])


def test_exit_code_and_unterminated_last_line(how):
    ran = run("exit")
    assert (ran.returncode, ran.lines) == (3, ["partial"])


def test_a_segfault_is_its_signal_and_leaves_the_python_stack(how):
    ran = run("crash")
    assert ran.returncode == -signal.SIGSEGV
    assert "Segmentation fault" in ran.stderr and "forkserver_job" in ran.stderr


def test_a_timeout_kills_the_worker_and_keeps_the_stages_seen(how):
    stages: list[str] = []
    started = time.monotonic()
    ran = run("sleep", timeout=3, stages=stages)
    assert ran.returncode is None and stages == ["sleeping"]
    assert time.monotonic() - started < 30


def test_an_environment_change_gets_a_server_of_its_own(monkeypatch):
    """torch reads some variables once, at import (ATEN_CPU_CAPABILITY, OMP_NUM_THREADS)."""
    monkeypatch.setenv("ONNXFIX_FORKSERVER", "1")
    first = forkserver.server_for(dict(os.environ))
    assert first is not None and forkserver.server_for(dict(os.environ, PYTEST_CURRENT_TEST="x")) is first
    assert forkserver.server_for(dict(os.environ, ONNXFIX_CACHE_DIR="elsewhere")) is first  # read at run time
    threads = "2" if os.environ.get("OMP_NUM_THREADS") == "1" else "1"  # tests/conftest.py sets 1 under xdist
    assert forkserver.server_for(dict(os.environ, OMP_NUM_THREADS=threads)) is not first
