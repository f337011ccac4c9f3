"""Olive `auto-opt` of Llama-3.2-1B-Instruct (OnnxConversion pass, TorchScript torch.onnx.export of the decoder with
attention_mask and past key/values): transformers' `masking_utils.sdpa_mask_recent_torch` builds the causal+padding
mask for SDPA by nesting `torch.vmap` over (batch, head, q, kv) aranges (kv_length = past + new tokens) with
`padding_mask[batch_idx, kv_idx]` inside `TransformGetItemToIndex()`; under tracing the is_causal skip is disabled,
so the vmap runs and the export dies with `RuntimeError: invalid unordered_map<K, T> key`.

Source: https://github.com/microsoft/Olive/issues/2105
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex

CLASS = "indexing"
FAMILY = "indexing"
DYNAMIC = {
    "input_ids": {0: "batch_size", 1: "sequence_length"},
    "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
    "past_key": {0: "batch_size", 2: "past_sequence_length"},
    "past_value": {0: "batch_size", 2: "past_sequence_length"},
}
BLIND = "domains-56"


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


class TinyLlamaSdpaDecoder(nn.Module):
    def __init__(self, vocab_size=64, hidden=16, heads=2):
        super().__init__()
        self.heads = heads
        self.embed_tokens = nn.Embedding(vocab_size, hidden)
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        self.lm_head = nn.Linear(hidden, vocab_size, bias=False)

    def forward(self, input_ids, attention_mask, past_key, past_value):
        x = self.embed_tokens(input_ids)
        b, s, d = x.shape
        past_seen_tokens = past_key.shape[2]
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + s, device=x.device)
        causal_mask = sdpa_mask_recent_torch(
            batch_size=b,
            cache_position=cache_position,
            kv_length=past_seen_tokens + s,
            attention_mask=attention_mask.bool(),
        )
        hd = d // self.heads
        q = self.q_proj(x).view(b, s, self.heads, hd).transpose(1, 2)
        k = torch.cat([past_key, self.k_proj(x).view(b, s, self.heads, hd).transpose(1, 2)], dim=2)
        v = torch.cat([past_value, self.v_proj(x).view(b, s, self.heads, hd).transpose(1, 2)], dim=2)
        is_causal = causal_mask is None and q.shape[2] > 1
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask, is_causal=is_causal)
        h = self.o_proj(h.transpose(1, 2).reshape(b, s, d))
        return self.lm_head(h), k, v


def _inputs(bsz, seq_len, past_len):
    attention_mask = torch.ones(bsz, past_len + seq_len, dtype=torch.long)
    attention_mask[0, :2] = 0  # left-padded first row
    return (torch.randint(0, 64, (bsz, seq_len)), attention_mask,
            torch.randn(bsz, 2, past_len, 8), torch.randn(bsz, 2, past_len, 8))


def make_model():
    return TinyLlamaSdpaDecoder().eval()


def example_inputs():
    return _inputs(2, 6, 4)


def other_inputs():
    return [_inputs(3, 9, 5), _inputs(1, 3, 7)]


def probe_inputs():
    return other_inputs()
