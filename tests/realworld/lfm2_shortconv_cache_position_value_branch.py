"""LFM2 (Liquid hybrid short-conv / attention LM) `Lfm2ShortConv.slow_forward` exported with its conv cache as
input/output: the layer picks the decoding update or the prefill convolution with
`if past_key_values is not None and cache_position[0] > 0:`, a branch on a tensor value, so a traced export keeps
only one of the two paths; optimum-intel's LFM2 export support patches this forward to "execute both the prefill
and decoding branches every time" so the traced model works for both steps.

Source: https://github.com/huggingface/optimum-intel/pull/1515
"""
import torch
from torch import nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "batch", 1: "seq"}, "conv_cache": {0: "batch"}, "cache_position": {0: "seq"}}
BLIND = "domains-80"


class Lfm2Config:
    hidden_size = 16
    conv_L_cache = 3
    conv_bias = False


def apply_mask_to_padding_states(hidden_states, attention_mask):
    if attention_mask is not None and attention_mask.shape[1] > 1 and attention_mask.shape[0] > 1:
        dtype = hidden_states.dtype
        hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)
    return hidden_states


class Lfm2HybridConvCache:
    """transformers' Lfm2HybridConvCache, holding the conv states handed in by the export wrapper."""

    def __init__(self, conv_cache):
        self.conv_cache = conv_cache


class Lfm2ShortConv(nn.Module):
    def __init__(self, config, layer_idx):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.L_cache = config.conv_L_cache
        self.bias = config.conv_bias

        self.conv = nn.Conv1d(
            in_channels=config.hidden_size,
            out_channels=config.hidden_size,
            kernel_size=self.L_cache,
            groups=config.hidden_size,
            padding=self.L_cache - 1,
            bias=self.bias,
        )
        self.in_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=self.bias)
        self.out_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=self.bias)

    def slow_forward(self, x, past_key_values=None, cache_position=None, attention_mask=None):
        seqlen = x.shape[1]

        x = apply_mask_to_padding_states(x, attention_mask)
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


class ShortConvWithCache(nn.Module):
    """Export wrapper: conv state in, conv state out (one layer of the stateful decoder)."""

    def __init__(self, config):
        super().__init__()
        self.conv = Lfm2ShortConv(config, layer_idx=0)

    def forward(self, x, conv_cache, cache_position):
        cache = Lfm2HybridConvCache([conv_cache.clone()])
        y = self.conv.slow_forward(x, past_key_values=cache, cache_position=cache_position)
        return y, cache.conv_cache[0]


def make_model():
    return ShortConvWithCache(Lfm2Config()).eval()


def _inputs(batch, seq, start):
    c = Lfm2Config()
    return (torch.randn(batch, seq, c.hidden_size),
            torch.randn(batch, c.hidden_size, c.conv_L_cache),
            torch.arange(start, start + seq))


def example_inputs():
    return _inputs(2, 5, 0)            # prefill: cache_position = arange(seq)


def other_inputs():
    # a decoding step (one token at position 7), then a longer prefill
    return [_inputs(3, 1, 7), _inputs(1, 8, 0)]


def probe_inputs():
    return other_inputs()
