"""A worker for tests/test_forkserver.py: `python -m forkserver_job MODE` (run from tests/)."""

import os
import sys
import time

mode = sys.argv[1]
if mode == "echo":
    print("argv", sys.argv[1:])
    print("stdin", sys.stdin.read())
    print("cwd", os.getcwd())
    print("test", os.environ.get("PYTEST_CURRENT_TEST"))
elif mode == "crash":
    import ctypes

    ctypes.string_at(0)  # a segfault, as the dynamo exporter has on `x.data * 2 + x`
elif mode == "sleep":
    print("ONNXFIX-STAGE sleeping", flush=True)
    time.sleep(120)
elif mode == "exit":
    print("partial", end="")
    sys.exit(3)
