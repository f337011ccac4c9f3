import torch


def _onnx_flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                         return_lse=False, kernel_options=None, *, return_aux=None):
    # flex_attention runs a higher-order op that neither exporter translates (and a block mask
    # built in forward sorts and counts blocks). While exporting, the dense form of torch's own
    # reference (math_attention): the scaled scores with score_mod applied at every (batch, head,
    # query, key) index at once, -inf where the block mask's mask_mod is False, a softmax that
    # gives fully masked rows zeros, times the values. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.attention.flex_attention.flex_attention(
            query, key, value, score_mod, block_mask, scale, enable_gqa, return_lse, kernel_options,
            return_aux=return_aux)
    groups = query.shape[1] // key.shape[1]  # grouped-query attention: kv heads repeated
    key = key.repeat_interleave(groups, dim=1)
    value = value.repeat_interleave(groups, dim=1)
    precision = torch.float64 if query.dtype == torch.float64 else torch.float32
    if scale is None:
        scale = query.shape[-1] ** -0.5
    scores = query.to(precision) @ key.to(precision).transpose(-2, -1) * scale
    device = scores.device
    indices = [torch.arange(size, device=device) for size in scores.shape]  # batch, head, query, key

    def at_every_index(mod, *leading):
        # mod called as flex_attention calls it. Under torch.export once per (batch, head, query,
        # key) through nested vmaps, as torch's reference does (chained indexing, transformers'
        # `mask[b][0][q][kv]`, needs scalar indices; getitem by a tensor made an index op, as
        # torch does while it traces). The legacy tracer has no vmap: one call on broadcast index
        # tensors, the same for elementwise code.
        if not torch.compiler.is_exporting():
            return mod(*leading, *(i.view([-1 if d == axis else 1 for d in range(4)]) for axis, i in enumerate(indices)))
        try:
            from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex as getitem_as_index
        except ImportError:
            from contextlib import nullcontext as getitem_as_index
        mapped = mod
        for axis in (3, 2, 1, 0):  # the key index innermost, the batch index outermost
            mapped = torch.vmap(mapped, in_dims=(*(0,) * len(leading), *(0 if d == axis else None for d in range(4))))
        with getitem_as_index():
            return mapped(*leading, *indices)

    if score_mod is not None:
        scores = at_every_index(score_mod, scores)
    if block_mask is not None:  # a BlockMask, or the mask_mod _onnx_create_block_mask stands in with
        keep = at_every_index(getattr(block_mask, "mask_mod", block_mask))
        scores = scores.masked_fill(~keep, float("-inf"))
    masked = (scores == float("-inf")).all(-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(masked, 0.0), -1).masked_fill(masked, 0.0)
    out = (weights @ value.to(precision)).to(query.dtype)
    if return_aux is not None:
        lse = torch.logsumexp(scores, -1) if return_aux.lse else None
        max_scores = scores.amax(-1) if return_aux.max_scores else None
        return out, torch.nn.attention.flex_attention.AuxOutput(lse=lse, max_scores=max_scores)
    if return_lse:
        return out, torch.logsumexp(scores, -1)
    return out
