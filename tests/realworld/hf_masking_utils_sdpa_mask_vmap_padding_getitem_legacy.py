"""LLM prefill with transformers' `masking_utils` mask: `eager_mask` -> `sdpa_mask_recent_torch` builds the 4D causal+padding mask
by nesting `torch.vmap` over (batch, head, q, kv) index aranges, with `padding_mask[batch_idx, kv_idx]` indexed
by scalar index tensors inside `TransformGetItemToIndex()`; the report's legacy torch.onnx.export of the LLM dies
inside that vmap (custom_function_call_vmap ... `RuntimeError: unordered_map::at`).

Source: https://github.com/pytorch/pytorch/issues/172880
"""
import torch
from torch import nn
from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}}
BLIND = "domains-34"


def is_torchdynamo_compiling():
    try:
        return torch.compiler.is_compiling()
    except Exception:
        return False


def and_masks(*mask_functions):
    def and_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            result = result & mask(batch_idx, head_idx, q_idx, kv_idx).to(result.device)
        return result

    return and_mask


def causal_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return kv_idx <= q_idx


def padding_mask_function(padding_mask):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return padding_mask[batch_idx, kv_idx]

    return inner_mask


def _vmap_for_bhqkv(mask_function, bh_indices=True):
    dimensions = [(None, None, None, 0), (None, None, 0, None)]
    if bh_indices:
        dimensions.extend([(None, 0, None, None), (0, None, None, None)])
    for dims in dimensions:
        mask_function = torch.vmap(mask_function, in_dims=dims, out_dims=0)
    return mask_function


def prepare_padding_mask(attention_mask, kv_length, kv_offset, _slice=True):
    local_padding_mask = attention_mask
    if attention_mask is not None:
        if (padding_length := kv_length + kv_offset - attention_mask.shape[-1]) > 0:
            local_padding_mask = torch.nn.functional.pad(attention_mask, (0, padding_length))
        if _slice:
            mask_indices = torch.arange(kv_length, device=local_padding_mask.device)
            mask_indices += kv_offset
            local_padding_mask = local_padding_mask[:, mask_indices]
    return local_padding_mask


def _ignore_causal_mask_sdpa(padding_mask, query_length, kv_length, kv_offset, local_attention_size=None):
    is_tracing = torch.jit.is_tracing() or isinstance(padding_mask, torch.fx.Proxy) or is_torchdynamo_compiling()
    if padding_mask is not None and padding_mask.shape[-1] > kv_length:
        mask_indices = torch.arange(kv_length, device=padding_mask.device)
        mask_indices += kv_offset
        padding_mask = padding_mask[:, mask_indices]
    if (
        not is_tracing
        and (query_length == 1 or kv_length == query_length)
        and (local_attention_size is None or kv_length < local_attention_size)
        and (padding_mask is None or padding_mask.all())
    ):
        return True
    return False


def sdpa_mask_recent_torch(batch_size, cache_position, kv_length, kv_offset=0, mask_function=causal_mask_function,
                           attention_mask=None, local_size=None, allow_is_causal_skip=True, **kwargs):
    q_length = cache_position.shape[0]
    padding_mask = prepare_padding_mask(attention_mask, kv_length, kv_offset, _slice=False)
    if allow_is_causal_skip and _ignore_causal_mask_sdpa(padding_mask, q_length, kv_length, kv_offset, local_size):
        return None
    kv_arange = torch.arange(kv_length, device=cache_position.device)
    kv_arange += kv_offset
    if padding_mask is not None:
        mask_function = and_masks(mask_function, padding_mask_function(padding_mask))
    batch_arange = torch.arange(batch_size, device=cache_position.device)
    head_arange = torch.arange(1, device=cache_position.device)
    with TransformGetItemToIndex():
        causal_mask = _vmap_for_bhqkv(mask_function)(batch_arange, head_arange, cache_position, kv_arange)
    return causal_mask


def eager_mask(batch_size, cache_position, kv_length, kv_offset=0, mask_function=causal_mask_function,
               attention_mask=None, dtype=torch.float32, **kwargs):
    _ = kwargs.pop("allow_is_causal_skip", None)
    mask = sdpa_mask_recent_torch(
        batch_size=batch_size,
        cache_position=cache_position,
        kv_length=kv_length,
        kv_offset=kv_offset,
        mask_function=mask_function,
        attention_mask=attention_mask,
        allow_is_causal_skip=False,
        **kwargs,
    )
    min_dtype = torch.finfo(dtype).min
    mask = torch.where(mask, torch.tensor(0.0, device=mask.device, dtype=dtype), min_dtype)
    return mask


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=50, hidden=16, heads=2):
        super().__init__()
        self.heads = heads
        self.embed_tokens = nn.Embedding(vocab_size, hidden)
        self.qkv_proj = nn.Linear(hidden, 3 * hidden)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, attention_mask):
        x = self.embed_tokens(input_ids)
        b, s, d = x.shape
        cache_position = torch.arange(s, device=x.device)
        causal_mask = eager_mask(b, cache_position, s, attention_mask=attention_mask.bool(), dtype=x.dtype)
        q, k, v = self.qkv_proj(x).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        attn_weights = torch.matmul(q, k.transpose(2, 3)) * (d // self.heads) ** -0.5 + causal_mask
        h = torch.matmul(attn_weights.softmax(dim=-1), v)
        return self.lm_head(h.transpose(1, 2).reshape(b, s, d))


def _batch(bsz, seq_len):
    attention_mask = torch.ones(bsz, seq_len, dtype=torch.long)
    attention_mask[0, seq_len - seq_len // 3:] = 0  # right-padded first row
    return torch.randint(0, 50, (bsz, seq_len)), attention_mask


def make_model():
    return TinyCausalLM().eval()


def example_inputs():
    return _batch(2, 10)


def other_inputs():
    return [_batch(3, 13), _batch(1, 7)]


def probe_inputs():
    return other_inputs()
