"""Transformers v5 attention-mask construction (`masking_utils`): `create_bidirectional_mask` takes
`q_length = inputs_embeds.shape[1]` and calls `sdpa_mask(batch_size, q_length, kv_length, ...)`, whose
backward-compat branch for the deprecated `cache_position` argument is `if isinstance(q_length, torch.Tensor):
q_length, q_offset = q_length.shape[0], q_length[0]`. Under torch.onnx.export's tracer the size is a 0-d
tensor, so the export takes the cache_position branch and dies with `IndexError: tuple index out of range`
(report: ModernBERT; one tiny ModernBERT-style encoder layer here, padded batches).

Source: https://github.com/huggingface/transformers/issues/45735
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"}}
BLIND = "domains-37"


def is_torchdynamo_compiling():
    try:
        import torch.compiler

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


def bidirectional_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return q_idx.new_ones((), dtype=torch.bool)


def padding_mask_function(padding_mask):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return padding_mask[batch_idx, kv_idx]

    return inner_mask


def prepare_padding_mask(attention_mask, kv_length, kv_offset):
    local_padding_mask = attention_mask
    if attention_mask is not None:
        if (padding_length := kv_length + kv_offset - attention_mask.shape[-1]) > 0:
            local_padding_mask = torch.nn.functional.pad(attention_mask, (0, padding_length))
    return local_padding_mask


def _ignore_bidirectional_mask_sdpa(padding_mask, kv_length, local_attention_size=None):
    is_tracing = torch.jit.is_tracing() or isinstance(padding_mask, torch.fx.Proxy) or is_torchdynamo_compiling()
    if not is_tracing and (padding_mask is None or padding_mask.all()) and local_attention_size is None:
        return True
    return False


def _non_vmap_expansion_sdpa(batch_indices, head_indices, q_indices, kv_indices):
    batch_indices = batch_indices[:, None, None, None]
    head_indices = head_indices[None, :, None, None]
    q_indices = q_indices[None, None, :, None]
    kv_indices = kv_indices[None, None, None, :]
    return batch_indices, head_indices, q_indices, kv_indices


def sdpa_mask(batch_size, q_length, kv_length, q_offset=0, kv_offset=0, mask_function=bidirectional_mask_function,
              attention_mask=None, local_size=None, allow_is_causal_skip=True, allow_is_bidirectional_skip=False,
              allow_torch_fix=True, use_vmap=False, device="cpu", **kwargs):
    # deprecated arg: `cache_position` used to be passed here instead of `q_length`/`q_offset`
    if isinstance(q_length, torch.Tensor):
        q_length, q_offset = q_length.shape[0], q_length[0].to(device)

    padding_mask = prepare_padding_mask(attention_mask, kv_length, kv_offset)

    if allow_is_bidirectional_skip and _ignore_bidirectional_mask_sdpa(padding_mask, kv_length, local_size):
        return None

    if padding_mask is not None:
        mask_function = and_masks(mask_function, padding_mask_function(padding_mask))

    batch_arange = torch.arange(batch_size, device=device)
    head_arange = torch.arange(1, device=device)
    q_arange = torch.arange(q_length, device=device) + q_offset
    kv_arange = torch.arange(kv_length, device=device) + kv_offset

    attention_mask = mask_function(*_non_vmap_expansion_sdpa(batch_arange, head_arange, q_arange, kv_arange))
    attention_mask = attention_mask.expand(batch_size, -1, q_length, kv_length)
    return attention_mask


def create_bidirectional_mask(config, inputs_embeds, attention_mask):
    batch_size, dtype = inputs_embeds.shape[0], inputs_embeds.dtype
    q_length = inputs_embeds.shape[1]
    kv_length, kv_offset = inputs_embeds.shape[1], 0
    if attention_mask is not None:
        attention_mask = attention_mask.to(device=inputs_embeds.device, dtype=torch.bool)
    return sdpa_mask(
        batch_size=batch_size, q_length=q_length, kv_length=kv_length, q_offset=0, kv_offset=kv_offset,
        mask_function=bidirectional_mask_function, attention_mask=attention_mask, allow_is_causal_skip=False,
        allow_is_bidirectional_skip=True, dtype=dtype, config=config, device=inputs_embeds.device,
    )


class ModernBertConfig:
    vocab_size = 64
    hidden_size = 32
    num_attention_heads = 4
    _attn_implementation = "sdpa"


class ModernBertModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.tok_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.norm = nn.LayerNorm(config.hidden_size)
        self.Wqkv = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=False)
        self.Wo = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.final_norm = nn.LayerNorm(config.hidden_size)

    def forward(self, input_ids, attention_mask):
        hidden_states = self.norm(self.tok_embeddings(input_ids))
        mask = create_bidirectional_mask(config=self.config, inputs_embeds=hidden_states, attention_mask=attention_mask)

        bs, seqlen, dim = hidden_states.shape
        heads = self.config.num_attention_heads
        qkv = self.Wqkv(hidden_states).view(bs, -1, 3, heads, dim // heads)
        query, key, value = qkv.transpose(3, 1).unbind(dim=2)
        attn = nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask)
        attn = attn.transpose(1, 2).contiguous().view(bs, -1, dim)
        return self.final_norm(hidden_states + self.Wo(attn))


def make_model():
    return ModernBertModel(ModernBertConfig()).eval()


def _batch(bsz, seq_len):
    input_ids = torch.randint(0, 64, (bsz, seq_len))
    attention_mask = torch.ones(bsz, seq_len, dtype=torch.long)
    for b in range(1, bsz):
        attention_mask[b, seq_len - b:] = 0  # right padding
    return input_ids, attention_mask


def example_inputs():
    return _batch(2, 8)


def other_inputs():
    return [_batch(3, 11), _batch(1, 5)]


def probe_inputs():
    return other_inputs()
