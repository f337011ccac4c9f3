"""flex_attention and its block masks (torch.nn.attention.flex_attention): a higher-order op that
neither exporter translates, written out densely while exporting (rule ONX534). (Attention with a
tensor `scale=`: registry_tensor_numbers.py.)"""

from __future__ import annotations

from onnxfix.decompositions.base import PYTORCH, Decomposition, Proof

_FLEX = "torch.nn.attention.flex_attention."
# score_mod and mask_mod as the proofs pass them: a relative-position bias and a causal mask
_SCORE_MOD = "score_mod=lambda s, bi, hi, qi, ki: s + (qi - ki) * 0.05"
_MASK_MOD = "lambda bi, hi, qi, ki: qi >= ki"

DECOMPOSITIONS: tuple[Decomposition, ...] = (
    Decomposition(
        "flex_attention", (_FLEX + "flex_attention",), True, (),
        (PYTORCH + "165948", PYTORCH + "140849"),
        "Scaled dot-product attention with a score_mod and a block mask, written out as torch's own "
        "reference computes it (torch._higher_order_ops.flex_attention.math_attention): the full "
        "scores matrix in float32 (float64 for float64 inputs), score_mod called at every (batch, head, "
        "query, key) index through nested vmaps under torch.export, as torch's reference does (transformers' "
        "chained `mask[b][0][q][kv]` needs that), once on broadcast index tensors under the legacy tracer, "
        "which has no vmap (elementwise code only: chained indexing fails that export loudly), -inf where mask_mod is False "
        "(the block mask's mask_mod; its block sparsity only skips blocks mask_mod masks), a softmax "
        "that gives fully masked rows zeros. A score_mod or mask_mod must compute elementwise on "
        "tensors, as flex_attention's vmap already requires. Batch x heads x queries x keys in "
        "memory. Eager keeps the op (guarded helper).",
        rule="ONX534", registered_by="torch.nn.attention.flex_attention",
        proof=Proof(f"{_FLEX}flex_attention(q, k, v, {_SCORE_MOD})",
                    f"_onnx_flex_attention(q, k, v, {_SCORE_MOD})",
                    "(randn(g, b, 2, 6, 4), randn(g, b, 2, 6, 4), randn(g, b, 2, 6, 4))",
                    params="q, k, v", decomposition_tol=1e-6),
    ),
    Decomposition(
        "create_block_mask", (_FLEX + "create_block_mask",), True, (),
        (PYTORCH + "165948",),
        "A block mask built in forward: while exporting, its mask_mod stands for it, which "
        "_onnx_flex_attention evaluates at every index (create_block_mask's stable sort and block "
        "counts export nowhere). Only _onnx_flex_attention takes the stand-in. Eager keeps the op "
        "(guarded helper).",
        rule="ONX534", requires=("flex_attention",), registered_by="torch.nn.attention.flex_attention",
        proof=Proof(f"{_FLEX}flex_attention(q, k, v, block_mask={_FLEX}create_block_mask("
                    f"{_MASK_MOD}, None, None, q.shape[2], k.shape[2], device=q.device))",
                    f"_onnx_flex_attention(q, k, v, block_mask=_onnx_create_block_mask("
                    f"{_MASK_MOD}, None, None, q.shape[2], k.shape[2], device=q.device))",
                    "(randn(g, b, 2, 6, 4), randn(g, b, 2, 6, 4), randn(g, b, 2, 6, 4))",
                    params="q, k, v", decomposition_tol=1e-6),
    ),
)
