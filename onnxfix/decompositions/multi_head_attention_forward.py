import torch


def _onnx_multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                       in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                       out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
                                       attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
                                       k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                                       average_attn_weights=True, is_causal=False):
    # The legacy exporter bakes the sequence length into the key and value reshapes: torch reads
    # k.shape[0] after its packed in-projection (one linear, then unflatten / transpose / squeeze),
    # through which the exporter's shape inference loses the dynamic dimension and folds the size
    # to the example's. The packed weight's thirds as separate projections (torch's own
    # use_separate_proj_weight path) are the same linear maps, and each size stays read from its
    # input. Eager and dynamo keep the call as it was.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.multi_head_attention_forward(
            query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
            add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
            k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k, static_v=static_v,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
    if not use_separate_proj_weight and in_proj_weight is not None:
        q_proj_weight, k_proj_weight, v_proj_weight = in_proj_weight.chunk(3)
        use_separate_proj_weight = True
    return torch.nn.functional.multi_head_attention_forward(
        query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
        add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=training,
        key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
        use_separate_proj_weight=use_separate_proj_weight, q_proj_weight=q_proj_weight,
        k_proj_weight=k_proj_weight, v_proj_weight=v_proj_weight, static_k=static_k, static_v=static_v,
        average_attn_weights=average_attn_weights, is_causal=is_causal)
