import torch


def _onnx_sdpa_batched_heads(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                             enable_gqa=False):
    # F.scaled_dot_product_attention on 3-D (batch, length, features) or 5-D and higher tensors: the
    # dynamo exporter takes only 4-D ones ("only 4D query, key, and value are supported"). The same
    # attention with a heads axis of 1 (and a 3-D mask given one too), then that axis dropped; or with
    # the batch axes flattened into one. Eager keeps the op.
    if not torch.onnx.is_in_onnx_export():  # eager: the op itself, bit for bit
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if query.dim() > 4 and key.dim() >= 3 and value.dim() >= 3:
        # (..., heads, length, features) with more than one batch axis (Transkun's axial attention):
        # the batch axes, broadcast to the query's, flattened into one and restored after
        lead = query.shape[:-3]

        def four(t):
            return t.expand(*lead, *t.shape[-3:]).reshape(-1, *t.shape[-3:])

        if attn_mask is not None and attn_mask.dim() > 3:
            attn_mask = four(attn_mask)
        output = torch.nn.functional.scaled_dot_product_attention(four(query), four(key), four(value), attn_mask,
                                                                  dropout_p, is_causal, scale=scale,
                                                                  enable_gqa=enable_gqa)
        return output.reshape(*lead, *output.shape[-3:])
    if query.dim() != 3:
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if attn_mask is not None and attn_mask.dim() == 3:
        attn_mask = attn_mask.unsqueeze(1)
    output = torch.nn.functional.scaled_dot_product_attention(query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1),
                                                              attn_mask, dropout_p, is_causal, scale=scale,
                                                              enable_gqa=enable_gqa)
    return output.squeeze(1)
