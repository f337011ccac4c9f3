"""Phi-3 128k's Phi3SuScaledRotaryEmbedding computes `seq_len = torch.max(position_ids) + 1` and
branches on `seq_len > self.original_max_position_embeddings` to pick the long or short RoPE
factors; the reporter (following the torch.export tutorial) says torch.export breaks on this
data-dependent branch (GuardOnDataDependentSymNode).

Source: https://huggingface.co/microsoft/Phi-3-mini-128k-instruct/discussions/61
"""
import math

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 2: "seq"}, "position_ids": {0: "batch", 1: "seq"}}
BLIND = "domains-44"


class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=2048, base=10000, device=None):
        super().__init__()
        self.dim = dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        self.register_buffer("inv_freq", None, persistent=False)


class Phi3SuScaledRotaryEmbedding(Phi3RotaryEmbedding):
    def __init__(self, dim, config, device=None):
        super().__init__(dim, config["max_position_embeddings"], config["rope_theta"], device)
        self.short_factor = config["rope_scaling"]["short_factor"]
        self.long_factor = config["rope_scaling"]["long_factor"]
        self.original_max_position_embeddings = config["original_max_position_embeddings"]

    @torch.no_grad()
    def forward(self, x, position_ids, seq_len=None):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.original_max_position_embeddings:
            ext_factors = torch.tensor(self.long_factor, dtype=torch.float32, device=x.device)
        else:
            ext_factors = torch.tensor(self.short_factor, dtype=torch.float32, device=x.device)

        inv_freq_shape = torch.arange(0, self.dim, 2, dtype=torch.int64, device=x.device).float() / self.dim
        self.inv_freq = 1.0 / (ext_factors * self.base**inv_freq_shape)

        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)

        scale = self.max_position_embeddings / self.original_max_position_embeddings
        if scale <= 1.0:
            scaling_factor = 1.0
        else:
            scaling_factor = math.sqrt(1 + math.log(scale) / math.log(self.original_max_position_embeddings))

        cos = emb.cos() * scaling_factor
        sin = emb.sin() * scaling_factor
        return cos.to(x.dtype), sin.to(x.dtype)


CONFIG = {
    "max_position_embeddings": 512,
    "original_max_position_embeddings": 16,
    "rope_theta": 10000.0,
    "rope_scaling": {"short_factor": [1.0, 1.1, 1.3, 1.6],
                     "long_factor": [1.0, 2.5, 6.0, 14.0]},
}


def make_model():
    return Phi3SuScaledRotaryEmbedding(8, CONFIG)


def example_inputs():
    return (torch.randn(2, 4, 10, 8), torch.arange(10).expand(2, 10).contiguous())


def other_inputs():
    return [(torch.randn(3, 4, 12, 8), (torch.arange(12) + 20).expand(3, 12).contiguous()),
            (torch.randn(1, 4, 6, 8), torch.arange(6).expand(1, 6).contiguous())]


def probe_inputs():
    return other_inputs()
