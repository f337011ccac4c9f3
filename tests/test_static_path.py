"""The static path (report, --diff, --write) never runs user code and never imports torch.

The installed `onnxfix` command runs in a child process with PYTHONPROFILEIMPORTTIME=1, so every
module the interpreter imported is listed on stderr (python -X importtime); the user's file would
write a marker file and raise if it were ever imported or executed.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HEAVY = ("torch", "numpy", "onnx", "onnxruntime", "onnxscript", "transformers")
ONNXFIX = shutil.which("onnxfix", path=str(Path(sys.executable).parent)) or shutil.which("onnxfix")


def imported_modules(stderr: str) -> set[str]:
    """Top-level names of every module in a -X importtime listing."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name.split(".")[0])
    return names


@pytest.mark.parametrize("mode", [[], ["--diff"], ["--write"], ["--write", "--unsafe-fixes"]], ids=["check", "diff", "write", "unsafe"])
def test_user_code_never_runs_and_torch_is_never_imported(mode, tmp_path):
    assert ONNXFIX, "the onnxfix command is not installed"
    marker = tmp_path / "user-code-ran"
    model = tmp_path / "model.py"
    model.write_text(
        textwrap.dedent(
            f"""\
            import torch
            from torch import nn
            open({str(marker)!r}, "w").write("imported")
            raise SystemExit("user code ran")


            class M(nn.Module):
                def forward(self, x, n):
                    s = x.size(1)
                    s += 1
                    open({str(marker)!r}, "w").write("forward ran")
                    return x.reshape(n.item(), -1) * s, x.data


            if __name__ == "__main__":
                open({str(marker)!r}, "w").write("main ran")
            """
        )
    )
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1")
    result = subprocess.run([ONNXFIX, "model.py", *mode], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr[-2000:]
    modules = imported_modules(result.stderr)
    assert "onnxfix" in modules  # the listing is real
    assert not modules & set(HEAVY), sorted(modules & set(HEAVY))
    if not mode:
        assert "libcst" not in modules  # reporting never needs libcst
    assert not marker.exists()
    if "--write" in mode:
        assert "s = s + 1" in model.read_text() and "reshape(n, -1)" in model.read_text()
