"""A user's file around three transformers architectures whose export fails inside transformers
(site-packages, which onnxfix never edits): PhiMoE and Qwen3-VL-MoE on the `grouped_mm_fallback`
custom op of their experts, Llama 4 on its complex RoPE. Small configs, random weights, text
input only, no KV cache; each factory returns a module whose forward gives the first output."""

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, PretrainedConfig

DYNAMIC = {"input_ids": {0: "batch", 1: "seq"}}
SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
             intermediate_size=64, head_dim=8, num_local_experts=4, num_experts=4, moe_intermediate_size=32,
             max_position_embeddings=64, vocab_size=100, image_size=32, patch_size=8, num_layers=2,
             num_heads=4, depth=2, embed_dim=32, out_hidden_size=32, projector_input_dim=32,
             projector_output_dim=32, vision_output_dim=32)


class FirstOutput(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids=input_ids)[0]


def _shrunk(config, depth=0):
    for key, value in SMALL.items():
        if isinstance(getattr(config, key, None), int) and not isinstance(getattr(config, key), bool):
            try:
                setattr(config, key, value)
            except Exception:  # a derived, read-only attribute
                pass
    if hasattr(config, "use_cache"):
        config.use_cache = False
    for key in list(vars(config)):
        sub = getattr(config, key, None)
        if isinstance(sub, PretrainedConfig) and depth < 3:
            _shrunk(sub, depth + 1)
    return config


def _model(model_type):
    config = _shrunk(AutoConfig.for_model(model_type))
    torch.manual_seed(0)
    return FirstOutput(AutoModel.from_config(config)).eval()


def make_phimoe():
    return _model("phimoe")


def make_qwen3_vl_moe():
    return _model("qwen3_vl_moe")


def make_llama4():
    return _model("llama4")


def example_inputs():
    return (torch.randint(3, 90, (2, 7)),)


def probe_inputs():
    return [(torch.randint(3, 90, (3, 11)),)]
