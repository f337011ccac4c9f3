"""Tiny decoder-only language models (one layer, random weights, built offline) that return
their KV cache: `onnxfix export` exports each as a decoder with past (exporter/kv_cache.py)."""

import torch
import transformers as hf

LAYER = dict(num_hidden_layers=1, hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=64, vocab_size=100, max_position_embeddings=64)
CONFIGS = {
    "gpt2": lambda: (hf.GPT2LMHeadModel, hf.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, n_positions=64)),
    "llama": lambda: (hf.LlamaForCausalLM, hf.LlamaConfig(**LAYER)),  # the API test's (build("llama"))
    "mistral": lambda: (hf.MistralForCausalLM, hf.MistralConfig(**LAYER)),
    "phi": lambda: (hf.PhiForCausalLM, hf.PhiConfig(**LAYER)),
    # a sliding layer (window 4) then a full-attention one
    "gemma2_window": lambda: (hf.Gemma2ForCausalLM, hf.Gemma2Config(head_dim=8, sliding_window=4, **{**LAYER, "num_hidden_layers": 2})),
}


def build(arch):
    torch.manual_seed(0)
    cls, config = CONFIGS[arch]()
    return cls(config)


def make_gpt2():
    return build("gpt2")


def make_mistral():
    return build("mistral")


def make_phi():
    return build("phi")


def make_gemma2_window():
    return build("gemma2_window")


def example_inputs():
    return (torch.randint(0, 100, (1, 6), generator=torch.Generator().manual_seed(0)),)
