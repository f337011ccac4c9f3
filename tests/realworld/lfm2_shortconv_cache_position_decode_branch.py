"""LFM2 (Liquid AI hybrid conv/attention LM) exported for on-device decoding with `(input_ids, cache_position)`:
`Lfm2ShortConv.slow_forward` picks the decode path with `if past_key_values is not None and cache_position[0] > 0:`,
a branch on a tensor value, so `torch.export` fails with a data-dependent guard in `slow_forward`.

Source: https://github.com/huggingface/transformers/issues/39436
"""
from types import SimpleNamespace
from typing import Optional

import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"input_ids": {1: "sequence_length"}, "cache_position": {0: "sequence_length"}}
BLIND = "domains-12"

config = SimpleNamespace(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         conv_L_cache=3, conv_bias=False, norm_eps=1e-5)


class Lfm2RMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class Lfm2HybridConvCache:
    def __init__(self, config, max_batch_size: int, dtype=torch.float32, device=None):
        self.conv_cache = [
            torch.zeros(max_batch_size, config.hidden_size, config.conv_L_cache, dtype=dtype, device=device)
            for _ in range(config.num_hidden_layers)
        ]


class Lfm2ShortConv(nn.Module):
    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.L_cache = config.conv_L_cache
        self.bias = config.conv_bias
        self.conv = nn.Conv1d(config.hidden_size, config.hidden_size, kernel_size=self.L_cache,
                              groups=config.hidden_size, bias=self.bias, padding=self.L_cache - 1)
        self.in_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=self.bias)
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=self.bias)

    def slow_forward(self, x: torch.Tensor, past_key_values: Optional[Lfm2HybridConvCache] = None,
                     cache_position: Optional[torch.LongTensor] = None):
        seqlen = x.shape[1]
        BCx = self.in_proj(x).transpose(-1, -2)
        B, C, x = BCx.chunk(3, dim=-2)

        Bx = B * x

        if past_key_values is not None and cache_position[0] > 0:
            conv_state = past_key_values.conv_cache[self.layer_idx]
            cache_position = cache_position.clamp(0, self.L_cache - 1)
            conv_state = conv_state.roll(shifts=-1, dims=-1)
            conv_state[:, :, cache_position] = Bx.to(device=conv_state.device, dtype=conv_state.dtype)
            past_key_values.conv_cache[self.layer_idx].copy_(conv_state)
            conv_out = torch.sum(conv_state.to(Bx.device) * self.conv.weight[:, 0, :], dim=-1)
            if self.bias:
                conv_out += self.conv.bias

            conv_out = conv_out.unsqueeze(-1)
        else:
            if past_key_values is not None:
                conv_state = nn.functional.pad(Bx, (self.L_cache - Bx.shape[-1], 0))
                past_key_values.conv_cache[self.layer_idx].copy_(conv_state)

            conv_out = self.conv(Bx)[..., :seqlen]

        y = C * conv_out
        y = y.transpose(-1, -2).contiguous()
        y = self.out_proj(y)
        return y


class Lfm2DecoderLayer(nn.Module):
    def __init__(self, config, layer_idx: int):
        super().__init__()
        self.conv = Lfm2ShortConv(config, layer_idx)
        self.feed_forward = nn.Sequential(nn.Linear(config.hidden_size, config.intermediate_size, bias=False),
                                          nn.SiLU(), nn.Linear(config.intermediate_size, config.hidden_size, bias=False))
        self.operator_norm = Lfm2RMSNorm(config.hidden_size, eps=config.norm_eps)
        self.ffn_norm = Lfm2RMSNorm(config.hidden_size, eps=config.norm_eps)

    def forward(self, hidden_states, past_key_values=None, cache_position=None):
        residual = hidden_states
        hidden_states = self.conv.slow_forward(self.operator_norm(hidden_states), past_key_values, cache_position)
        hidden_states = hidden_states + residual
        return hidden_states + self.feed_forward(self.ffn_norm(hidden_states))


class Lfm2ForCausalLM(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList([Lfm2DecoderLayer(config, i) for i in range(config.num_hidden_layers)])
        self.embedding_norm = Lfm2RMSNorm(config.hidden_size, eps=config.norm_eps)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)

    def forward(self, input_ids, cache_position):
        inputs_embeds = self.embed_tokens(input_ids)
        past_key_values = Lfm2HybridConvCache(config=self.config, max_batch_size=inputs_embeds.shape[0])
        hidden_states = inputs_embeds
        for decoder_layer in self.layers[: self.config.num_hidden_layers]:
            hidden_states = decoder_layer(hidden_states, past_key_values=past_key_values, cache_position=cache_position)
        return self.lm_head(self.embedding_norm(hidden_states))


def make_model():
    return Lfm2ForCausalLM(config).eval()


def example_inputs():
    return (torch.randint(0, 128, (1, 8)), torch.arange(0, 8))


def other_inputs():
    return [(torch.randint(0, 128, (1, 1)), torch.tensor([8])), (torch.randint(0, 128, (1, 5)), torch.arange(0, 5))]


def probe_inputs():
    return other_inputs()
