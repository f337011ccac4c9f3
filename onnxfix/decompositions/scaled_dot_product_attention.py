import torch


def _onnx_scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                       scale=None, enable_gqa=False):
    # F.scaled_dot_product_attention(..., enable_gqa=True) (grouped-query attention: fewer key /
    # value heads than query heads, transformers' Qwen3 / Llama path on torch >= 2.5): each
    # key/value head repeated for its group of query heads (expand + reshape along dim -3),
    # then the attention without enable_gqa, which the legacy exporter translates ("conversion
    # of scaled_dot_product_attention not implemented if enable_gqa is True"). Eager and
    # dynamo keep the op.
    if not torch.onnx.is_in_onnx_export() or torch.compiler.is_exporting():  # eager and dynamo: the op itself
        return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                                scale=scale, enable_gqa=enable_gqa)
    if enable_gqa:
        key, value = _onnx_repeat_heads(key, query.shape[-3]), _onnx_repeat_heads(value, query.shape[-3])
    return torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                            scale=scale)


def _onnx_repeat_heads(tensor, heads):
    # each head of `tensor` (dim -3) repeated for its group of `heads` query heads
    if tensor.shape[-3] == heads:
        return tensor
    group = heads // tensor.shape[-3]
    shape = tensor.shape[:-3] + (tensor.shape[-3] * group,) + tensor.shape[-2:]
    return tensor.unsqueeze(-3).expand(tensor.shape[:-2] + (group,) + tensor.shape[-2:]).reshape(shape)
