"""Worker processes forked from one warm process (zygote.py) instead of a fresh interpreter each.

Torch-free (the parent side). One server per environment: torch reads some variables once at
import (ATEN_CPU_CAPABILITY, OMP_NUM_THREADS, ...), so a job whose environment differs from
the one its server started with gets a server of its own. Where fork is not to be had (not
POSIX, the warm-up left a thread alive, the server died) ``start`` returns None and the caller
runs a plain subprocess: slower, never different. ``ONNXFIX_FORKSERVER=0`` turns it off.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time

STARTUP_TIMEOUT = 300.0  # import torch and one tiny export of each exporter, on a loaded machine
# Not a reason for a server of its own: set anew for every call and read by nothing at import
# (pytest names the running test here), or read at run time (ONNXFIX_WORKER; ONNXFIX_CACHE_DIR, read
# by the static runner alone), or what the forked child does itself (zygote.run_child: faulthandler
# as asked, line-buffered output). Each server costs a torch import and the exporters' warm-up.
VOLATILE = frozenset({"PYTEST_CURRENT_TEST", "ONNXFIX_FORKSERVER", "ONNXFIX_WORKER", "ONNXFIX_CACHE_DIR",
                      "PYTHONFAULTHANDLER", "PYTHONUNBUFFERED"})


class _Server:
    def __init__(self, env: dict[str, str]):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "onnxfix.exporter.zygote"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env=env,
        )
        self.ready = threading.Event()
        self.refused = False
        self.changed = threading.Condition()
        self.started: dict[str, int] = {}
        self.exited: dict[int, int] = {}
        self.ids = itertools.count()
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in self.process.stdout:
            word, _, rest = raw.decode("utf-8", "replace").strip().partition(" ")
            with self.changed:
                if word == "READY":
                    self.ready.set()
                elif word == "STARTED":
                    job, pid = rest.split()
                    self.started[job] = int(pid)
                elif word == "EXITED":
                    pid, code = rest.split()
                    self.exited[int(pid)] = int(code)
                elif word == "REFUSED":
                    self.refused = True
                self.changed.notify_all()
        with self.changed:  # the server is gone: wake every waiter
            self.refused = True
            self.ready.set()
            self.changed.notify_all()

    def usable(self) -> bool:
        self.ready.wait(STARTUP_TIMEOUT)
        return self.ready.is_set() and not self.refused and self.process.poll() is None

    def start(self, module: str, argv: list[str], cwd: str, env: dict[str, str], stdin: str, stdout: str,
              stderr: str, dynamo: bool = True) -> int | None:
        """Fork a child for the job (the server warms the dynamo exporter first if ``dynamo`` and it
        has not yet); its pid, or None when the server could not."""
        job = str(next(self.ids))
        line = json.dumps({"id": job, "module": module, "argv": argv, "cwd": cwd, "env": env,
                           "stdin": stdin, "stdout": stdout, "stderr": stderr, "dynamo": dynamo}) + "\n"
        try:
            with self.write_lock:
                self.process.stdin.write(line.encode())
                self.process.stdin.flush()
        except OSError:
            return None
        with self.changed:
            # the first job needing dynamo waits for its warm-up too
            self.changed.wait_for(lambda: job in self.started or self.refused, timeout=STARTUP_TIMEOUT)
            return self.started.pop(job, None)

    def wait(self, pid: int, timeout: float) -> int | None:
        """The child's exit code, or None if it is still running after ``timeout`` seconds."""
        with self.changed:
            self.changed.wait_for(lambda: pid in self.exited or self.refused, timeout=timeout)
            if pid in self.exited:
                return self.exited.pop(pid)
            if self.refused:  # the server died: its children were re-parented, their status lost
                return -signal.SIGKILL
            return None

    def close(self) -> None:
        try:
            self.process.stdin.close()  # the server ends at end of input
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


_servers: dict[tuple, _Server] = {}
_lock = threading.Lock()


def server_for(env: dict[str, str]) -> _Server | None:
    if os.environ.get("ONNXFIX_FORKSERVER", "1") == "0" or not hasattr(os, "fork"):
        return None
    key = tuple(sorted(item for item in env.items() if item[0] not in VOLATILE))
    with _lock:
        server = _servers.get(key)
        if server is None or server.process.poll() is not None:
            server = _servers[key] = _Server(env)
    return server if server.usable() else None


def kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
            return
        except (ProcessLookupError, PermissionError):
            continue


@atexit.register
def _close_all() -> None:
    for server in list(_servers.values()):
        server.close()
    _servers.clear()


def poll_interval(started: float) -> float:
    """Short waits first (most workers of a small model end within a second), then 0.5 s."""
    return 0.05 if time.monotonic() - started < 2 else 0.5
