"""What ONX536's documentation says of the legacy exporter, measured: a negative dim given to permute,
or as movedim's source, reaches the Transpose as it is and onnxruntime refuses the model; the same
dim counted from the front, and a negative movedim destination, export and match eager."""

from __future__ import annotations

import io

import numpy as np
import onnxruntime as ort
import pytest
import torch


class _Op(torch.nn.Module):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, x):
        return self.op(x)


def _legacy_runs(op) -> bool:
    """Exported by the legacy exporter with a dynamic batch, onnxruntime matches eager on another batch."""
    model, buffer = _Op(op), io.BytesIO()
    torch.onnx.export(model, (torch.randn(2, 3, 4),), buffer, dynamo=False, input_names=["x"],
                      dynamic_axes={"x": {0: "batch"}})
    try:
        session = ort.InferenceSession(buffer.getvalue())
    except Exception:  # noqa: BLE001 - onnxruntime refuses the graph
        return False
    x = torch.randn(3, 3, 4)
    return np.allclose(session.run(None, {"x": x.numpy()})[0], model(x).numpy())


@pytest.mark.parametrize("negative, counted", [
    (lambda x: x.permute(1, -1, 0), lambda x: x.permute(1, 2, 0)),
    (lambda x: torch.movedim(x, -1, 0), lambda x: torch.movedim(x, x.dim() - 1, 0)),
    (lambda x: x.moveaxis(-2, 0), lambda x: x.moveaxis(x.dim() - 2, 0)),
], ids=["permute", "movedim", "moveaxis"])
def test_a_negative_dim_fails_and_the_dim_counted_from_the_front_exports(negative, counted):
    assert not _legacy_runs(negative)
    assert _legacy_runs(counted)


def test_a_negative_movedim_destination_exports():
    assert _legacy_runs(lambda x: torch.movedim(x, 0, -1))
