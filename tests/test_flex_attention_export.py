"""ONX534's helper on transformers' flex_attention score_mod, whose chained indexing
(`mask[b][0][q][kv]`) needs one call per index: under torch.export the helper vmaps it, as torch's
reference does, and the dynamo export matches eager flex_attention in onnxruntime at other sizes."""
from __future__ import annotations

import warnings

import torch

from onnxfix.decompositions import load_function
from onnxfix.exporter import comparison, verify


class MaskedFlex(torch.nn.Module):
    def __init__(self, helper):
        super().__init__()
        self.helper = helper

    def forward(self, q, k, v, mask):
        def score_mod(score, b, h, q_idx, kv_idx):
            return score + mask[b][0][q_idx][kv_idx]

        return self.helper(q, k, v, score_mod=score_mod)


def _inputs(batch, length, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(batch, 2, length, 8, generator=g) for _ in range(3))
    mask = torch.where(torch.rand(batch, 1, length, length, generator=g) > 0.3, 0.0, -1e4)
    return q, k, v, mask


def test_chained_indexing_score_mod_exports_with_dynamo(tmp_path):
    from torch.nn.attention.flex_attention import flex_attention

    model = MaskedFlex(load_function("flex_attention")).eval()
    args = _inputs(2, 6, 0)
    path = tmp_path / "m.onnx"
    dynamic = {i: {0: "batch", 2: "length"} for i in range(3)} | {3: {0: "batch", 2: "length", 3: "length"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        verify.export_model(model, args, "dynamo", path, dynamic)
        for batch, length, seed in ((3, 9, 1), (1, 4, 2)):
            probe = _inputs(batch, length, seed)
            want = flex_attention(*probe[:3], score_mod=lambda s, b, h, qi, ki: s + probe[3][b][0][qi][ki])
            got = comparison.run_onnx(path, probe, verify.input_names(model, 4))[0]
            torch.testing.assert_close(torch.as_tensor(got), want, rtol=1e-4, atol=1e-5)


def test_the_export_branch_returns_flex_attentions_auxiliary_outputs(monkeypatch):
    """`return_aux=AuxRequest(lse=True)` and the deprecated `return_lse=True` give what flex_attention
    gives, on the export branch (the flag forced, as while the legacy exporter traces). max_scores has
    no CPU kernel in eager to compare with."""
    from torch.nn.attention.flex_attention import AuxRequest, create_block_mask, flex_attention

    helper = load_function("flex_attention")
    q, k, v, _ = _inputs(2, 6, 3)
    mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, 6, 6, device="cpu")
    want_out, want_aux = flex_attention(q, k, v, block_mask=mask, return_aux=AuxRequest(lse=True))
    want_lse = flex_attention(q, k, v, block_mask=mask, return_lse=True)[1]
    monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
    out, aux = helper(q, k, v, block_mask=mask, return_aux=AuxRequest(lse=True))
    torch.testing.assert_close(out, want_out)
    torch.testing.assert_close(aux.lse, want_aux.lse)
    assert aux.max_scores is None
    torch.testing.assert_close(helper(q, k, v, block_mask=mask, return_lse=True)[1], want_lse)
