"""Helpers that run their decomposition in eager too (not guarded by torch.onnx.is_in_onnx_export())
must give the op's values AND its memory layout: the same values with other strides can round
otherwise in a later reduction (operators-8's stable sort, then `.mean(dim=2)`: a safe ONX504 fix
changed eager output by 6e-8 when `_onnx_sort` returned a moved-dim view)."""

from __future__ import annotations

import pytest
import torch

from onnxfix.decompositions import eager_guarded, load_function

X = torch.randn(3, 5, 4, generator=torch.Generator().manual_seed(0))
TRANSPOSED = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(1)).transpose(1, 2)

CALLS = {
    "cummax": (torch.cummax, lambda f, t: f(t, 1)),
    "cummin": (torch.cummin, lambda f, t: f(t, 1)),
    "kthvalue": (torch.kthvalue, lambda f, t: f(t, 2, 1)),
    "median": (torch.median, lambda f, t: f(t, 1)),
    "nanmedian": (torch.nanmedian, lambda f, t: f(t, 1)),
    "sort": (torch.sort, lambda f, t: f(t, dim=1, descending=True, stable=True)),
    "argsort": (torch.argsort, lambda f, t: f(t, dim=1, stable=True)),
    "diag_embed": (torch.diag_embed, lambda f, t: f(t)),
    "rot90": (torch.rot90, lambda f, t: f(t, 1, (1, 2))),
}


@pytest.mark.parametrize("key", sorted(CALLS))
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_unguarded_helper_gives_the_op_layout(key, layout):
    assert not eager_guarded(key)  # a guarded helper is the op itself in eager
    op, call = CALLS[key]
    x = X if layout == "contiguous" else TRANSPOSED
    want, got = call(op, x), call(load_function(key), x)
    for w, g in zip(*(v if isinstance(v, tuple) else (v,) for v in (want, got))):
        assert torch.equal(g, w) and g.stride() == w.stride(), (g.stride(), w.stride())
        assert torch.equal(g.double().mean(1), w.double().mean(1))  # what the layout is for: a later reduction
