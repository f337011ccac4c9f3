import torch


def _onnx_sdpa_masked_rows(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                           enable_gqa=False):
    # F.scaled_dot_product_attention with a mask that leaves a query row nothing to attend to (a
    # padding token): ATen's attention gives that row zeros (its safe softmax), the dynamo exporter's
    # translation a softmax over the masked scores (an average of the values, or NaN). Under
    # torch.export the attention is written out as ATen's math path computes it: scores, the mask,
    # softmax, and rows with every score -inf set to zero. Eager and the legacy exporter keep the op.
    if not torch.compiler.is_exporting():
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if attn_mask is None or dropout_p != 0.0 or is_causal:
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        group = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(group, dim=-3), value.repeat_interleave(group, dim=-3)
    if attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros_like(attn_mask, dtype=query.dtype).masked_fill(~attn_mask, float("-inf"))
    scale = query.shape[-1] ** -0.5 if scale is None else scale
    root = abs(scale) ** 0.5  # on each side before the product, as ATen's math path (no float16 overflow)
    scores = (query * root) @ (key * (root if scale >= 0 else -root)).transpose(-2, -1) + attn_mask
    weights = torch.softmax(scores, dim=-1)
    weights = torch.where((scores == float("-inf")).all(dim=-1, keepdim=True), 0.0, weights)
    return weights @ value
