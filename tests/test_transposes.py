"""ONX532's safe fix is the transpose ATen defines `mT` / `mH` / `adjoint` / `H` as, for every rank:
on a 0-d tensor those are the tensor itself (deprecated, conjugated), where `transpose` raises, so
the rewrite reads the rank (`x.dim()`) first. Checked in eager on 0-d, 2-d and 3-d, real and complex."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from onnxfix import api  # noqa: E402

SOURCE = """import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, y: torch.Tensor):
        return x.mT, x.mH, x.adjoint(), torch.adjoint(x), y.H
"""


def test_the_safe_rewrite_keeps_every_rank(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    api.fix(path, exporters=["legacy"], write=True)
    fixed = path.read_text()
    assert ".mT" not in fixed and ".mH" not in fixed and "adjoint" not in fixed and ".H" not in fixed
    namespaces = [{}, {}]
    exec(compile(SOURCE, "original", "exec"), namespaces[0])
    exec(compile(fixed, "fixed", "exec"), namespaces[1])
    before, after = namespaces[0]["Model"](), namespaces[1]["Model"]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mT / mH / H on 0-d tensors are deprecated
        for x, y in [(torch.tensor(2.5), torch.tensor(1.5)), (torch.randn(3, 4), torch.randn(2, 5)),
                     (torch.randn(2, 3, 4, dtype=torch.complex64), torch.randn(3, 3, dtype=torch.complex64)),
                     (torch.tensor(1 + 2j), torch.tensor(3 - 1j))]:
            for a, b in zip(before(x, y), after(x, y), strict=True):
                assert torch.equal(a.resolve_conj(), b.resolve_conj()) and a.shape == b.shape
