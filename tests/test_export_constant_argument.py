"""`onnxfix export --write` repairing by the legacy exporter's failure: a symbolic that takes an
argument only as a constant got a size traced as a graph value (ONX922), and ONX209 records that
size as a constant (tests/export_models/head_group_norm.py)."""

from __future__ import annotations

import pytest

from export_cli import written_and_proven

pytestmark = pytest.mark.usefixtures("in_repo")  # tests/conftest.py


def test_a_group_count_read_from_the_shape_is_recorded_as_the_constant_group_norm_takes(tmp_path, capsys):
    """TiRex: `num_groups=NH`, NH from `x.shape`: legacy stops ("Expected node type 'onnx::Constant' for
    argument 'num_groups'"); `int(NH)` with ONX203 told to keep it, proven on probes whose batch and
    sequence differ from the export's."""
    written = written_and_proven(tmp_path, capsys, "head_group_norm.py", ["OK", "EXPORT-FAILS"])
    assert ("out = F.group_norm(flat, num_groups=int(NH), weight=1.0 + self.weight)"
            "  # noqa: ONX203 (a constant the legacy exporter needs)") in written
