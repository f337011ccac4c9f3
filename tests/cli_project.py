"""The command-line tests' shared project: a file with hazards, its fix, a clean file, and a
folder with a pyproject targeting both exporters (tests/test_cli*.py)."""

import textwrap
from pathlib import Path

import pytest

from onnxfix.cli import main

HAZARD = textwrap.dedent(
    """\
    import torch
    from torch import nn


    class M(nn.Module):
        def forward(self, x: torch.Tensor, n: torch.Tensor):
            s = x.size(1)
            s += 1  # grow
            y = x.reshape(n.item(), -1)
            return y * s, x.data
    """
)
FIXED = HAZARD.replace("s += 1", "s = s + 1").replace("n.item()", "n").replace("x.data", "x.detach()")
CLEAN = "import torch\n\n\ndef f(x):\n    return x + 1\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder with a pyproject targeting both exporters, as the cwd."""
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(folder: Path, name: str, text: str, newline: str = "\n") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def run(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
