"""End to end through the CLI: legacy-only value hazards are hidden under the default
config (exporters = ["dynamo"]) and shown and fixed when the project targets legacy too
(`len(x)` is both: torch.export's non-strict mode specializes the dimension too)."""

import subprocess
import sys
import textwrap

MODEL = textwrap.dedent(
    """\
    import math

    import torch
    from torch import nn


    class Head(nn.Module):
        def forward(self, x: torch.Tensor):
            rows = x.view(int(x.size(0)), -1)
            scaled = rows / math.sqrt(x.size(-1))
            return scaled[: len(x) - 1]
    """
)
SQRT = (
    "model.py:10:25: ONX402 `math.sqrt` of a size: the legacy exporter records the export-time value "
    "and the dynamo exporter cannot export it for a dynamic dimension; fix is unsafe: `d ** 0.5` is not correctly "
    "rounded and can differ from `math.sqrt` in the last bit"
)
INT = "model.py:9:23: ONX203 [*] `int()` of a size: the legacy exporter records the size as a constant; the size is already an int"
LEN = "model.py:11:25: ONX204 [*] `len()` of a tensor: the legacy exporter records the length as a constant and torch.export's non-strict mode specializes the dimension; use `.shape[0]`"


def onnxfix(folder, *args):
    proc = subprocess.run(
        [sys.executable, "-m", "onnxfix", "model.py", "-q", *args], cwd=folder, capture_output=True, text=True
    )
    return proc.returncode, proc.stdout.splitlines()


def test_default_config_targets_dynamo_only(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    assert onnxfix(tmp_path) == (1, [SQRT, LEN])
    assert onnxfix(tmp_path, "--write")[0] == 1
    # the other dynamo finding has an unsafe fix
    assert (tmp_path / "model.py").read_text() == MODEL.replace("len(x)", "x.shape[0]")


def test_config_with_legacy_shows_and_fixes_legacy_only_hazards(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    (tmp_path / "model.py").write_text(MODEL)
    assert onnxfix(tmp_path) == (1, [INT, SQRT, LEN])
    onnxfix(tmp_path, "--write")
    fixed = MODEL.replace("int(x.size(0))", "x.size(0)").replace("len(x)", "x.shape[0]")
    assert (tmp_path / "model.py").read_text() == fixed
    assert onnxfix(tmp_path) == (1, [SQRT])
    onnxfix(tmp_path, "--write", "--unsafe-fixes")
    # math's last use went, and its import with it
    assert (tmp_path / "model.py").read_text() == fixed.replace("math.sqrt(x.size(-1))", "x.size(-1) ** 0.5").replace(
        "import math\n\n", "", 1)
    assert onnxfix(tmp_path) == (0, [])
