"""Gemma 4 text decoder under the tracer (ov.convert_model with torch.jit.trace; same tracer as legacy
torch.onnx.export): transformers 5.x `create_causal_mask` / `create_sliding_window_causal_mask` take
`q_length = inputs_embeds.shape[1]` and call `sdpa_mask`, whose deprecated-`cache_position` branch does
`if isinstance(q_length, torch.Tensor): q_length, q_offset = q_length.shape[0], q_length[0].to(device)`;
traced, the size is a 0-d tensor and export dies with `IndexError: tuple index out of range` in both the
full-causal and the sliding-window paths (report). One full and one sliding layer, no KV cache (prefill),
traced on input_ids alone (attention_mask=None).

Source: https://github.com/huggingface/optimum-intel/issues/1693
"""
import torch
from torch import nn

CLASS = "size-branch"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {0: "batch", 1: "sequence"}}
BLIND = "domains-41"


def and_masks(*mask_functions):
    def and_mask(batch_idx, head_idx, q_idx, kv_idx):
        result = q_idx.new_ones((), dtype=torch.bool)
        for mask in mask_functions:
            result = result & mask(batch_idx, head_idx, q_idx, kv_idx).to(result.device)
        return result
    return and_mask


def causal_mask_function(batch_idx, head_idx, q_idx, kv_idx):
    return kv_idx <= q_idx


def sliding_window_overlay(sliding_window):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return kv_idx > q_idx - sliding_window
    return inner_mask


def padding_mask_function(padding_mask):
    def inner_mask(batch_idx, head_idx, q_idx, kv_idx):
        return padding_mask[batch_idx, kv_idx]
    return inner_mask


def _ignore_causal_mask_sdpa(padding_mask, query_length, kv_length, kv_offset, local_attention_size=None):
    is_tracing = torch.jit.is_tracing() or isinstance(padding_mask, torch.fx.Proxy) or torch.compiler.is_compiling()
    if (not is_tracing and (query_length == 1 or kv_length == query_length)
            and (local_attention_size is None or kv_length < local_attention_size)
            and (padding_mask is None or padding_mask.all())):
        return True
    return False


def sdpa_mask(batch_size, q_length, kv_length, q_offset=0, kv_offset=0, mask_function=causal_mask_function,
              attention_mask=None, local_size=None, allow_is_causal_skip=True, device="cpu", **kwargs):
    # deprecated: `cache_position` used to be passed instead of `q_length`/`q_offset`
    if isinstance(q_length, torch.Tensor):
        q_length, q_offset = q_length.shape[0], q_length[0].to(device)
    padding_mask = attention_mask
    if allow_is_causal_skip and _ignore_causal_mask_sdpa(padding_mask, q_length, kv_length, kv_offset, local_size):
        return None
    if padding_mask is not None:
        mask_function = and_masks(mask_function, padding_mask_function(padding_mask))
    batch_arange = torch.arange(batch_size, device=device)[:, None, None, None]
    head_arange = torch.arange(1, device=device)[None, :, None, None]
    q_arange = (torch.arange(q_length, device=device) + q_offset)[None, None, :, None]
    kv_arange = (torch.arange(kv_length, device=device) + kv_offset)[None, None, None, :]
    attention_mask = mask_function(batch_arange, head_arange, q_arange, kv_arange)
    return attention_mask.expand(batch_size, -1, q_length, kv_length)


def create_causal_mask(config, inputs_embeds, attention_mask, sliding_window=None):
    batch_size = inputs_embeds.shape[0]
    q_length = inputs_embeds.shape[1]
    kv_length, kv_offset = q_length, 0
    mask_factory_function = causal_mask_function
    if sliding_window is not None:
        mask_factory_function = and_masks(sliding_window_overlay(sliding_window), causal_mask_function)
    if attention_mask is not None:
        attention_mask = attention_mask.to(device=inputs_embeds.device, dtype=torch.bool)
    return sdpa_mask(batch_size=batch_size, q_length=q_length, kv_length=kv_length, q_offset=0, kv_offset=kv_offset,
                     mask_function=mask_factory_function, attention_mask=attention_mask, local_size=sliding_window,
                     allow_is_causal_skip=True, device=inputs_embeds.device)


class Gemma4TextConfig:
    vocab_size, hidden_size, num_attention_heads, head_dim = 64, 32, 4, 8
    sliding_window = 4
    layer_types = ["sliding_attention", "full_attention"]


class Gemma4DecoderLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.h, self.d = config.num_attention_heads, config.head_dim
        self.qkv = nn.Linear(config.hidden_size, 3 * self.h * self.d, bias=False)
        self.o_proj = nn.Linear(self.h * self.d, config.hidden_size, bias=False)
        self.input_layernorm = nn.RMSNorm(config.hidden_size, eps=1e-6)

    def forward(self, hidden_states, attention_mask):
        b, s, _ = hidden_states.shape
        q, k, v = self.qkv(self.input_layernorm(hidden_states)).view(b, s, 3, self.h, self.d).permute(2, 0, 3, 1, 4)
        is_causal = attention_mask is None
        attn = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, is_causal=is_causal)
        return hidden_states + self.o_proj(attn.transpose(1, 2).reshape(b, s, -1))


class Gemma4TextModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(Gemma4DecoderLayer(config) for _ in config.layer_types)
        self.norm = nn.RMSNorm(config.hidden_size, eps=1e-6)

    def forward(self, input_ids, attention_mask=None):
        inputs_embeds = self.embed_tokens(input_ids) * self.config.hidden_size ** 0.5
        causal_mask_mapping = {
            "full_attention": create_causal_mask(self.config, inputs_embeds, attention_mask),
            "sliding_attention": create_causal_mask(self.config, inputs_embeds, attention_mask,
                                                    sliding_window=self.config.sliding_window),
        }
        hidden_states = inputs_embeds
        for layer, layer_type in zip(self.layers, self.config.layer_types):
            hidden_states = layer(hidden_states, causal_mask_mapping[layer_type])
        return self.norm(hidden_states)


def make_model():
    return Gemma4TextModel(Gemma4TextConfig()).eval()


def example_inputs():
    return (torch.randint(0, 64, (2, 9)),)


def other_inputs():
    return [(torch.randint(0, 64, (3, 13)),), (torch.randint(0, 64, (1, 6)),)]


def probe_inputs():
    return other_inputs()
