"""The warm process behind forkserver.py: imports torch and the exporters once, then forks one
child per export.

A fresh interpreter per export costs ~3 s to import torch and ~4 s more for the dynamo
exporter's first-call set-up (its operator registry), which dwarfed the exports themselves in
`onnxfix export --fix` (one export per exporter per fix round, each in its own process so that
an exporter segfault is a verdict, not a crash of onnxfix). A child forked from this warm
process keeps that isolation (its own address space, killed on timeout, its exit status
reported) and starts with everything loaded: it runs the worker module exactly as
`python -m <module>` would, with the parent's working directory and environment of the moment.

Fork safety: the warm-up runs no parallel ATen region (tensors of two elements) and leaves no
Python thread behind (checked at start-up: with one alive this process refuses to serve, and the
parent falls back to plain subprocesses), so a forked child does not inherit a half-held lock
or an OpenMP pool.

Protocol, one line each way: the parent writes {"id", "module", "argv", "cwd", "env", "stdin",
"stdout", "stderr"} as JSON (the last three are file paths); this process answers `READY`
once, `STARTED <id> <pid>` per job and `EXITED <pid> <exit code>` (negative: killed by that
signal) when a child ends. End of input ends it.
"""

from __future__ import annotations

import json
import os
import select
import sys
import traceback


class Tiny:
    """A one-op model for the warm-up exports (made after torch is imported)."""

    @staticmethod
    def model():
        import torch

        class Plus(torch.nn.Module):
            def forward(self, x):
                return x + 1

        return Plus().eval()


def warm() -> None:
    """Import what every worker imports and run the legacy exporter once on a tiny model; the
    dynamo exporter's set-up waits for the first job that needs it (`warm_dynamo`)."""
    import io
    import warnings

    import onnxruntime  # noqa: F401  (no thread of its own until a session is made)
    import torch
    import tqdm

    tqdm.tqdm.monitor_interval = 0  # the exporter's progress bars would start a monitor thread

    import onnxfix.exporter.evidence_worker  # noqa: F401
    import onnxfix.exporter.recorder  # noqa: F401
    import onnxfix.exporter.verify  # noqa: F401
    import onnxfix.exporter.worker  # noqa: F401

    from onnxfix.exporter.onnx_registry import reuse_onnx_registry
    reuse_onnx_registry()  # built by the dynamo warm-up export, inherited by every later forked export

    with warnings.catch_warnings(), open(os.devnull, "w") as sink:
        warnings.simplefilter("ignore")
        stdout, sys.stdout = sys.stdout, sink
        try:
            torch.onnx.export(Tiny.model(), (torch.ones(2),), io.BytesIO(), dynamo=False)
        finally:
            sys.stdout = stdout


_dynamo_warm = False


def warm_dynamo() -> None:
    """The dynamo exporter's first-call set-up (~4 s, its operator registry), once, in this process
    before it forks a job that exports with it: a legacy-only run, or an eager evidence run, never
    pays for it."""
    global _dynamo_warm
    if _dynamo_warm:
        return
    import warnings

    import torch

    with warnings.catch_warnings(), open(os.devnull, "w") as sink:
        warnings.simplefilter("ignore")
        stdout, sys.stdout = sys.stdout, sink
        try:
            torch.onnx.export(Tiny.model(), (torch.ones(2),), dynamo=True, verbose=False)
        finally:
            sys.stdout = stdout
    _dynamo_warm = True


def python_threads() -> list[str]:
    """Threads other than this one that Python runs (a lock one of them holds at the fork would
    stay held in the child). Native pools are not counted: OpenBLAS, which NumPy starts at
    import, re-creates its pool after a fork, as PyTorch's fork-started DataLoader workers rely on."""
    import threading

    return [t.name for t in threading.enumerate() if t is not threading.main_thread()]


def run_child(job: dict) -> None:
    """In the forked child: become `python -m job["module"]` with the job's files as its
    standard streams; never returns."""
    code = 1
    try:
        os.setpgid(0, 0)  # its own process group: a timeout kills whatever it started too
        _redirect(job)
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        import faulthandler
        import runpy

        if os.environ.get("PYTHONFAULTHANDLER"):  # read at start-up by a fresh interpreter
            faulthandler.enable()
        sys.argv = [job["module"], *job.get("argv", ())]
        sys.path[0] = job["cwd"]  # what `python -m` puts first
        runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001  (reported like an uncaught exception in a process)
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _redirect(job: dict) -> None:
    for fd, path, flags in ((0, job["stdin"], os.O_RDONLY),
                            (1, job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                            (2, job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        opened = os.open(path, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, encoding="utf-8", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False, buffering=1)
    sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False, buffering=1)


def serve() -> None:
    pending = b""
    while True:
        readable, _, _ = select.select([0], [], [], 0.05)
        if readable:
            chunk = os.read(0, 65536)
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.strip() and not start(json.loads(line)):
                    return
        reap()


def start(job: dict) -> bool:
    """Fork the job's child; False (and REFUSED said) when warming the dynamo exporter for it left
    a thread alive, which would make forking unsafe from now on."""
    if job.get("dynamo", True):
        warm_dynamo()
        threads = python_threads()
        if threads:
            say(f"REFUSED threads {', '.join(threads)} alive after the dynamo warm-up: forking would not be safe")
            return False
    pid = os.fork()
    if pid == 0:
        run_child(job)
    say(f"STARTED {job['id']} {pid}")
    return True


def reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        say(f"EXITED {pid} {os.waitstatus_to_exitcode(status)}")


def say(line: str) -> None:
    os.write(1, (line + "\n").encode())


def main() -> None:
    warm()
    threads = python_threads()
    if threads:
        say(f"REFUSED threads {', '.join(threads)} alive after warm-up: forking would not be safe")
        return
    say("READY")
    serve()


if __name__ == "__main__":
    main()
