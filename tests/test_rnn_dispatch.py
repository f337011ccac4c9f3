"""Exports of recurrent layers in one process (a notebook calling `onnxfix.export` twice, the
benches' in-process runs, the fix loop's worker): torch.onnx registers its while_loop
decomposition of aten.gru / aten.lstm by setting py_kernels, which leaves the kernels the ops'
dispatch cache resolved earlier; the second export of a GRU ran the cached Python loop over
the steps and fixed the sequence length ("tracing inferred a static shape of 9")."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from onnxfix.exporter import nn_layers  # noqa: E402
from onnxfix.exporter.probes import user_probes  # noqa: E402
from onnxfix.exporter.verify import verify  # noqa: E402


class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(6, 8, batch_first=True)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, features):
        hidden, _ = self.rnn(features)
        return self.head(hidden).softmax(-1)


def _exported_twice():
    torch.manual_seed(0)
    model = Tagger().eval()
    args = (torch.randn(2, 9, 6),)
    probes = user_probes([(torch.randn(3, 14, 6),), (torch.randn(1, 5, 6),)])
    dynamic = {0: {0: "batch", 1: "time"}}
    return [verify(lambda: model, args, probes, "dynamo", dynamic, None, None).verdict for _ in range(2)]


def test_a_second_export_in_the_process_keeps_the_sequence_length_dynamic():
    assert _exported_twice() == ["OK", "OK"]


def test_without_the_cleared_cache_the_second_export_fails(monkeypatch):
    """The test above can fail: with the cache left as torch leaves it, the second export fails."""
    monkeypatch.setattr("onnxfix.exporter.verify.fresh_rnn_dispatch", lambda: None)
    nn_layers.fresh_rnn_dispatch()
    first, second = _exported_twice()
    assert first == "OK" and second != "OK"
