"""ONX523's fix (`x.amax()` -> `x.amax(dim=tuple(range(x.dim())))`) is the same reduction: onnxfix's
own rewrite of a model gives bit-identical outputs and gradients on every dtype, layout and the
ties where reductions may differ (+0/-0, NaN of either sign), where `x.max()` does not."""

from pathlib import Path

import pytest
import torch

from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, fix_text
from onnxfix.rewriter.source import SourceFile

MODEL = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x.amax(), torch.amin(x), x.flip(0).amax(), torch.amax(x, ())
"""


def _model(text: str):
    namespace: dict = {}
    exec(compile(text, "model.py", "exec"), namespace)
    return namespace["Model"]()


def _models():
    source = SourceFile.from_bytes(Path("model.py"), MODEL.encode("utf-8"))
    settings = Settings(exporters=frozenset({"dynamo"}), unsafe_fixes=True)  # `x.flip(0)`: unsafe
    fixed, _, _ = fix_text(source, "model.py", settings, RuleSet(list(all_rules())))
    assert fixed.count("tuple(range(") == 4, fixed
    return _model(MODEL), _model(fixed)


def _bits(t: torch.Tensor) -> torch.Tensor:
    if t.dtype == torch.bool:
        return t
    return t.contiguous().view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def _inputs(dtype: torch.dtype):
    g = torch.Generator().manual_seed(0)
    for shape in ((1,), (7,), (3, 5), (2, 3, 4), (33, 65), (4097,)):
        if dtype == torch.bool:
            yield torch.rand(shape, generator=g) > 0.5
            continue
        if not dtype.is_floating_point:
            yield torch.randint(-50 if dtype != torch.uint8 else 0, 100, shape, generator=g).to(dtype)
            continue
        x = torch.randn(shape, generator=g)
        zeros = torch.zeros(shape)
        zeros.view(-1)[torch.randint(0, zeros.numel(), (max(1, zeros.numel() // 2),), generator=g)] = -0.0
        nan = x.clone()
        nan.view(-1)[torch.randint(0, nan.numel(), (3,), generator=g)] = torch.tensor([float("nan"), -float("nan"), 1.0])
        for value in (x, zeros, nan):
            value = value.to(dtype)
            yield value
            if value.dim() >= 2:
                yield value.transpose(0, 1).contiguous().transpose(0, 1)  # not contiguous


DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.uint8, torch.bool)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_rewrite_is_bit_identical(dtype):
    original, rewritten = _models()
    for x in _inputs(dtype):
        for before, after in zip(original(x), rewritten(x)):
            assert before.dtype == after.dtype and before.shape == after.shape
            assert torch.equal(_bits(before), _bits(after)), (x, before, after)


@pytest.mark.parametrize("dtype", (torch.float32, torch.float64), ids=str)
def test_rewrite_keeps_gradients(dtype):
    original, rewritten = _models()
    for x in _inputs(dtype):
        grads = []
        for model in (original, rewritten):
            leaf = x.detach().clone().requires_grad_()
            sum(model(leaf)).backward()
            grads.append(leaf.grad)
        assert torch.equal(_bits(grads[0]), _bits(grads[1]))


def test_max_is_not_the_same_reduction():
    """Why the fix keeps amax instead of writing `x.max()` (which also exports): on ties between
    +0 and -0 they return different zeros."""
    zeros = torch.tensor([0.0, -0.0, -0.0])
    assert not torch.signbit(zeros.amax()) and torch.signbit(zeros.max())
