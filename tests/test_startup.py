"""The static path stays light: checking never imports libcst, torch or the progress bar
library (unless at a terminal), so a one-file check starts like a small script."""

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).parent / "projects" / "multifile"
HEAVY = ("libcst", "torch", "numpy", "rope", "tqdm")

PROBE = """
import sys
from onnxfix import cli
code = cli.main(["-q", "--no-cache", "--exporters", "dynamo,legacy", "."])
loaded = [m for m in {heavy!r} if m in sys.modules]
print(code, loaded)
"""


def test_a_check_imports_nothing_heavy():
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY)],
        cwd=PROJECT, capture_output=True, text=True, check=True,
    )
    assert run.stdout.splitlines()[-1] == "1 []"
