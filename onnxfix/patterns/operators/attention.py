"""ONX534: flex_attention and its block masks (decompositions/registry_attention.py)."""

from __future__ import annotations

from onnxfix.patterns.operators.base import DecompositionRule, rule_doc


class FlexAttention(DecompositionRule):
    code = "ONX534"
    name = "flex-attention"
    summary = "`flex_attention` and `create_block_mask` do not export: rewrite to dense attention while exporting"
    default_safety = "safe"
    doc = rule_doc(
        "Finds `torch.nn.attention.flex_attention.flex_attention` (with or without `score_mod`, "
        "`block_mask`, `scale`, `enable_gqa`, `return_lse` / `return_aux`) and `create_block_mask`, "
        "however imported.",
        "flex_attention is a higher-order op with no ONNX translation: dynamo fails on it (or first on "
        "the stable sort of a block mask built in forward, `aten.sort.stable`), on CPU even before, "
        "with \"FlexAttention does not support backward on CPU\" while parameters require grad; the "
        "legacy exporter fails with \"Unsupported value kind: Tensor\". The block mask's sparsity is "
        "a speed-up only: it skips the blocks its mask_mod masks whole.",
        "from torch.nn.attention.flex_attention import create_block_mask, flex_attention\n\n\n"
        "class Decoder(nn.Module):\n"
        "    def forward(self, q, k, v):\n"
        "        mask = create_block_mask(causal, None, None, q.shape[2], k.shape[2])\n"
        "        return flex_attention(q, k, v, block_mask=mask)",
        "from torch.nn.attention.flex_attention import create_block_mask, flex_attention\n\n\n"
        "class Decoder(nn.Module):\n"
        "    def forward(self, q, k, v):\n"
        "        mask = _onnx_create_block_mask(causal, None, None, q.shape[2], k.shape[2])\n"
        "        return _onnx_flex_attention(q, k, v, block_mask=mask)",
        "Safe: both helpers return the torch op itself outside export (`torch.onnx.is_in_onnx_export()`, "
        "False in eager). Exported, the attention is torch's own dense reference (math_attention: "
        "float32 scores, score_mod and mask_mod at every index through vmap under torch.export, on broadcast "
        "index tensors under the legacy tracer, fully masked rows zero), "
        "equal to eager's to float rounding. The stand-in `_onnx_create_block_mask` returns while "
        "exporting is its mask_mod, which only `_onnx_flex_attention` takes: a block mask passed to "
        "other code fails the export loudly. A score_mod that is not elementwise on tensors (Python "
        "control flow on a score) fails the export as it fails flex_attention's vmap.",
        code,
    )


RULES = [FlexAttention]
