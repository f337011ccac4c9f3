"""OpenVLA (prismatic VLM: vision patch features projected and prepended to a Llama-2 language model) exported with
`torch.onnx.export(vla, (input_ids, attention_mask, pixel_values), ...)`: after transformers 4.51 the causal LM
builds a `DynamicCache` when `use_cache` is on and returns it with the logits, and with dynamo disabled the export
fails with "received an input of unsupported type: DynamicCache" (the dynamo export completes). Reduced to a
2-layer Llama backbone and the 4.51-style DynamicCache (key_cache/value_cache lists, pytree-registered as
transformers does).

Source: https://github.com/pytorch/pytorch/issues/153998
"""
import torch
import torch.utils._pytree as pytree
from torch import nn

CLASS = "outputs"
FAMILY = "tensor_data"
DYNAMIC = {"input_ids": {1: "sequence"}, "attention_mask": {1: "sequence"}}
BLIND = "domains-29"


class DynamicCache:
    def __init__(self):
        self._seen_tokens = 0
        self.key_cache = []
        self.value_cache = []

    def update(self, key_states, value_states, layer_idx):
        if layer_idx == 0:
            self._seen_tokens += key_states.shape[-2]
        if len(self.key_cache) <= layer_idx:
            self.key_cache.append(key_states)
            self.value_cache.append(value_states)
        else:
            self.key_cache[layer_idx] = torch.cat([self.key_cache[layer_idx], key_states], dim=-2)
            self.value_cache[layer_idx] = torch.cat([self.value_cache[layer_idx], value_states], dim=-2)
        return self.key_cache[layer_idx], self.value_cache[layer_idx]

    def get_seq_length(self, layer_idx=0):
        if len(self.key_cache) <= layer_idx:
            return 0
        return self.key_cache[layer_idx].shape[-2]


def _flatten_dynamic_cache(cache):
    return [cache.key_cache, cache.value_cache], ["key_cache", "value_cache"]


def _unflatten_dynamic_cache(values, context):
    cache = DynamicCache()
    cache.key_cache, cache.value_cache = values
    return cache


pytree.register_pytree_node(
    DynamicCache,
    _flatten_dynamic_cache,
    _unflatten_dynamic_cache,
    serialized_type_name=f"{DynamicCache.__module__}.{DynamicCache.__name__}",
    flatten_with_keys_fn=lambda c: (
        [(pytree.MappingKey("key_cache"), c.key_cache), (pytree.MappingKey("value_cache"), c.value_cache)],
        ["key_cache", "value_cache"],
    ),
)


class LlamaAttention(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.head_dim, self.layer_idx = hidden // heads, layer_idx
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def forward(self, hidden_states, attention_mask, past_key_value=None):
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)
        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        if past_key_value is not None:
            key_states, value_states = past_key_value.update(key_states, value_states, self.layer_idx)
        attn_output = nn.functional.scaled_dot_product_attention(query_states, key_states, value_states,
                                                                 attn_mask=attention_mask)
        attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1).contiguous()
        return self.o_proj(attn_output)


class LlamaDecoderLayer(nn.Module):
    def __init__(self, hidden, heads, layer_idx):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(hidden, eps=1e-6)
        self.self_attn = LlamaAttention(hidden, heads, layer_idx)
        self.post_attention_layernorm = nn.RMSNorm(hidden, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(hidden, 2 * hidden, bias=False), nn.SiLU(), nn.Linear(2 * hidden, hidden, bias=False))

    def forward(self, hidden_states, attention_mask, past_key_value=None):
        hidden_states = hidden_states + self.self_attn(self.input_layernorm(hidden_states), attention_mask, past_key_value)
        return hidden_states + self.mlp(self.post_attention_layernorm(hidden_states))


class OpenVLAForActionPrediction(nn.Module):
    def __init__(self, vocab=128, hidden=32, heads=4, num_layers=2, patch=4, vision_dim=48):
        super().__init__()
        self.patch = patch
        self.vision_backbone = nn.Conv2d(3, vision_dim, kernel_size=patch, stride=patch)
        self.projector = nn.Sequential(nn.Linear(vision_dim, hidden), nn.GELU(), nn.Linear(hidden, hidden))
        self.embed_tokens = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList([LlamaDecoderLayer(hidden, heads, i) for i in range(num_layers)])
        self.norm = nn.RMSNorm(hidden, eps=1e-6)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.use_cache = True

    def forward(self, input_ids, attention_mask, pixel_values, past_key_values=None, use_cache=None):
        use_cache = use_cache if use_cache is not None else self.use_cache
        if use_cache and past_key_values is None:
            past_key_values = DynamicCache()

        patch_features = self.vision_backbone(pixel_values).flatten(2).transpose(1, 2)
        projected_patch_embeddings = self.projector(patch_features)
        input_embeddings = self.embed_tokens(input_ids)
        # <BOS> + patch embeddings + prompt tokens
        multimodal_embeddings = torch.cat(
            [input_embeddings[:, :1, :], projected_patch_embeddings, input_embeddings[:, 1:, :]], dim=1
        )
        projected_patch_attention_mask = torch.full(
            (projected_patch_embeddings.shape[0], projected_patch_embeddings.shape[1]), True,
            dtype=attention_mask.dtype, device=attention_mask.device,
        )
        multimodal_attention_mask = torch.cat(
            [attention_mask[:, :1], projected_patch_attention_mask, attention_mask[:, 1:]], dim=1
        )

        seq = multimodal_embeddings.shape[1]
        causal = torch.ones(seq, seq, dtype=torch.bool, device=input_ids.device).tril()
        attn_mask = causal[None, None] & multimodal_attention_mask[:, None, None, :].bool()

        hidden_states = multimodal_embeddings
        for layer in self.layers:
            hidden_states = layer(hidden_states, attn_mask, past_key_values)
        logits = self.lm_head(self.norm(hidden_states))
        return logits, past_key_values


def make_model():
    return OpenVLAForActionPrediction().eval()


def example_inputs():
    return (torch.randint(0, 128, (1, 17)), torch.ones(1, 17, dtype=torch.long), torch.randn(1, 3, 16, 16))


def other_inputs():
    return [
        (torch.randint(0, 128, (1, 9)), torch.ones(1, 9, dtype=torch.long), torch.randn(1, 3, 16, 16)),
        (torch.randint(0, 128, (1, 26)), torch.ones(1, 26, dtype=torch.long), torch.randn(1, 3, 16, 16)),
    ]


def probe_inputs():
    return other_inputs()
