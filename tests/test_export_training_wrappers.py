"""Training-time wrappers left in a model being exported (exporter/training_wrappers.py): an
`nn.DataParallel` and activation checkpointing left on in eval. The legacy exporter refuses both;
within their repair contexts the export goes through what they wrap, and everything is put back
(blind domains-85: CheXNet's DataParallel, BERT's and GC-ViT's checkpointed layers)."""

from __future__ import annotations

import re

import pytest
import torch
import torch.utils.checkpoint

from onnxfix.exporter.export_repairs import EXPORT_REPAIRS
from onnxfix.exporter.training_wrappers import checkpoint_inlined, data_parallel_unwrapped
from onnxfix.exporter.probes import user_probes
from onnxfix.exporter.verify import verify


class Checkpointed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))

    def forward(self, x):
        for layer in self.layers:  # left on in eval, as transformers 3.5's BertEncoder did
            x = torch.utils.checkpoint.checkpoint(lambda h, layer=layer: torch.tanh(layer(h)), x, use_reentrant=True)
        return x


def _data_parallel():
    torch.manual_seed(0)
    inner = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    model = torch.nn.Sequential(torch.nn.DataParallel(inner), torch.nn.Linear(4, 2))
    return torch.nn.DataParallel(model).eval()


def _errors_naming(key: str, error: str) -> list[str]:
    return [k for k, repair in EXPORT_REPAIRS.items() if re.search(repair.error, error) and k == key]


def test_data_parallel_wrappers_are_unwrapped_and_put_back():
    model = _data_parallel()
    inner = model.module[0]
    with data_parallel_unwrapped(model):
        assert not isinstance(model, torch.nn.DataParallel)  # the legacy exporter's own check
        assert not isinstance(model.module[0], torch.nn.parallel.DataParallel)
    assert torch.nn.DataParallel is torch.nn.parallel.DataParallel and model.module[0] is inner
    error = ("ValueError: torch.nn.DataParallel is not supported by ONNX exporter, please use 'attribute' module to "
             "unwrap model from torch.nn.DataParallel. Try torch.onnx.export(model.module, ...)")
    assert _errors_naming("data_parallel_unwrapped", error) == ["data_parallel_unwrapped"]


def test_checkpointed_calls_run_inline_and_checkpointing_is_put_back():
    model, x = Checkpointed().eval(), torch.randn(3, 4, requires_grad=True)
    with checkpoint_inlined(model):
        inline = model(x)
    assert inline.grad_fn is not None and "CheckpointFunction" not in type(inline.grad_fn).__name__
    checkpointed = model(x)
    assert "CheckpointFunction" in type(checkpointed.grad_fn).__name__  # the autograd.Function is back
    assert torch.equal(inline, checkpointed)
    assert _errors_naming("checkpoint_inlined", "RuntimeError: unordered_map::at") == ["checkpoint_inlined"]


@pytest.mark.parametrize("make_model, key", [(_data_parallel, "data_parallel_unwrapped"),
                                             (lambda: Checkpointed().eval(), "checkpoint_inlined")])
def test_the_legacy_export_through_the_repair_matches_eager(make_model, key):
    args, probes = (torch.randn(2, 4),), user_probes([(torch.randn(5, 4),)])
    assert verify(make_model, args, probes, "legacy", {0: {0: "batch"}}).verdict == "EXPORT-FAILS"
    assert verify(make_model, args, probes, "legacy", {0: {0: "batch"}}, decompose=[key]).verdict == "OK"
