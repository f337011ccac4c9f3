import torch


def _onnx_sdpa_tensor_scale(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                            enable_gqa=False):
    # F.scaled_dot_product_attention with `scale=` a tensor (a temperature computed from the context's
    # length: TabDPT's `default_scale * beta`): the op reads it as a Python float, which torch.export
    # cannot decide (GuardOnDataDependentSymNode) and the legacy exporter records as a constant. While
    # exporting, the attention is written out as ATen's math path computes it, the scale kept a graph
    # value: q and k each times the square root of its magnitude, the mask (or the causal triangle)
    # added, a softmax that gives a row with nothing to attend to zeros. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if not isinstance(scale, torch.Tensor) or dropout_p != 0.0:
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        group = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(group, dim=-3), value.repeat_interleave(group, dim=-3)
    scale = scale.to(query.dtype)
    root = scale.abs().sqrt()  # on each side before the product, as ATen's math path
    scores = (query * root) @ (key * (root * torch.sign(scale))).transpose(-2, -1)
    if is_causal:
        keep = torch.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    weights = torch.softmax(scores, dim=-1)
    weights = torch.where((scores == float("-inf")).all(dim=-1, keepdim=True), 0.0, weights)
    return weights @ value
