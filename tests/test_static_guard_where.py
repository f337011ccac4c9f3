"""ONX601's fix of the BART-family fp16 clamp (`if h.dtype == torch.float16 and not
torch.isfinite(h).all(): h = torch.clamp(...)` -> the dtype test as the `if`, `torch.where` on the
tensor test): eager bit-identity of onnxfix's own rewrite on float16 inputs with and without inf/NaN, where the branch is
and is not taken (tests/flow_models/fp16_clamp.py proves the export on float32)."""

from pathlib import Path

import pytest
import torch

from onnxfix.config import Settings
from onnxfix.patterns import all_rules
from onnxfix.rewriter.engine import RuleSet, fix_text
from onnxfix.rewriter.source import SourceFile

MODEL = """import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, h):
        if h.dtype == torch.float16 and {test}:
            clamp_value = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        return h * 1
"""
# LongT5/Pix2Struct: the helper name is set again in each clamp of one function (the `if` on
# line 7 is fixed though `clamp_value` is read outside it: only after the next assignment).
REPEATED = """import torch
from torch import nn


class Layer(nn.Module):
    def forward(self, h):
        if h.dtype == torch.float16 and {test}:
            clamp_value = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        h = h * 2
        if h.dtype == torch.float16 and {test}:
            clamp_value = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        return h * 1
"""
TESTS = {True: "not torch.isfinite(h).all()", False: "torch.isinf(h).any()"}


def _layer(text: str):
    namespace: dict = {}
    exec(compile(text, "layer.py", "exec"), namespace)
    return namespace["Layer"]()


def _models(finite_all: bool, template: str = MODEL):
    """The model as written and as onnxfix rewrites it (--unsafe-fixes: the fix is unsafe here
    because `h` is returned after the `if`)."""
    text = template.format(test=TESTS[finite_all])
    source = SourceFile.from_bytes(Path("layer.py"), text.encode("utf-8"))
    settings = Settings(exporters=frozenset({"dynamo", "legacy"}), unsafe_fixes=True)
    fixed, _, _ = fix_text(source, "layer.py", settings, RuleSet(list(all_rules())))
    assert fixed.count("torch.where(") == fixed.count("if h.dtype == torch.float16:") == text.count("if "), fixed
    return _layer(text), _layer(fixed)


def cases():
    g = torch.Generator().manual_seed(0)
    finite = (torch.randn(4, 5, 6, generator=g) * 3e4).half()  # values in (max - 1000, max] included
    finite[0, 0, 0], finite[0, 0, 1], finite[0, 0, 2] = 65504.0, -65504.0, -0.0
    inf = finite.clone()
    inf[1, 2, 3], inf[2, 0, 1] = float("inf"), float("-inf")
    nan = finite.clone()
    nan[3, 1, 1] = float("nan")
    return {"finite": finite, "inf": inf, "nan": nan, "float32": finite.float(), "float32 inf": inf.float()}


@pytest.mark.parametrize("template", [MODEL, REPEATED], ids=["once", "repeated"])
@pytest.mark.parametrize("finite_all", [True, False])
@pytest.mark.parametrize("name", sorted(cases()))
def test_bit_identical(name, finite_all, template):
    h = cases()[name]
    original, rewritten = _models(finite_all, template)
    before, after = original(h.clone()), rewritten(h.clone())
    assert before.dtype == after.dtype and before.shape == after.shape
    assert torch.equal(before.view(torch.int16) if h.dtype == torch.float16 else before.view(torch.int32),
                       after.view(torch.int16) if h.dtype == torch.float16 else after.view(torch.int32))


def test_clamp_is_not_a_no_op_on_finite_values():
    """Why the clamp must stay under the tensor test: it changes finite values above max - 1000."""
    h = cases()["finite"]
    clamp_value = torch.finfo(h.dtype).max - 1000
    assert not torch.equal(torch.clamp(h, min=-clamp_value, max=clamp_value), h)
