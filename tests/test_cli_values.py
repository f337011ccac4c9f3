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
    "model.py:10:25: ONX402 [*] `math.sqrt` of a size: the legacy exporter records the export-time value "
    "and the dynamo exporter cannot export it for a dynamic dimension; `_onnx_size_sqrt` is `math.sqrt` in eager and "
    "`d ** 0.5` under torch.export (the legacy exporter still records the export-time value); with `--unsafe-fixes` "
    "`d ** 0.5` (unsafe: `d ** 0.5` is not correctly rounded and can differ from `math.sqrt` in the last bit)"
)
SQRT_HELPER = "scaled = rows / _onnx_size_sqrt(math.sqrt, x.size(-1))"
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
    text = (tmp_path / "model.py").read_text()
    # both dynamo findings fixed (the square root by its safe helper), the legacy-only `int()` left
    assert SQRT_HELPER in text and "x.view(int(x.size(0)), -1)" in text and "scaled[: x.shape[0] - 1]" in text
    assert "def _onnx_size_sqrt(sqrt, d):" in text
    assert onnxfix(tmp_path) == (0, [])


def test_config_with_legacy_shows_and_fixes_legacy_only_hazards(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.onnxfix]\nexporters = ["dynamo", "legacy"]\n')
    (tmp_path / "model.py").write_text(MODEL)
    assert onnxfix(tmp_path) == (1, [INT, SQRT, LEN])
    onnxfix(tmp_path, "--write")
    fixed = MODEL.replace("int(x.size(0))", "x.size(0)").replace("len(x)", "x.shape[0]")
    text = (tmp_path / "model.py").read_text()
    assert text.endswith(fixed.split("class Head")[1].replace("scaled = rows / math.sqrt(x.size(-1))", SQRT_HELPER))
    assert onnxfix(tmp_path) == (0, [])
    (tmp_path / "model.py").write_text(MODEL)
    onnxfix(tmp_path, "--write", "--unsafe-fixes")
    # the stronger `d ** 0.5` in place of the helper; math's last use went, and its import with it
    assert (tmp_path / "model.py").read_text() == fixed.replace("math.sqrt(x.size(-1))", "x.size(-1) ** 0.5").replace(
        "import math\n\n", "", 1)
    assert onnxfix(tmp_path) == (0, [])
