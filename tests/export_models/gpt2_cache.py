"""A tiny GPT-2 built offline. `use_cache` is on (transformers' default), so forward returns the
KV cache (a DynamicCache) next to the logits: torch.export cannot flatten it as it is, and
`onnxfix export` exports the model as a decoder with past instead."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel


def make_model():
    torch.manual_seed(0)
    config = GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, n_positions=64)
    return GPT2LMHeadModel(config)


def example_inputs():
    return (torch.randint(0, 100, (1, 8)),)
