"""Control: the same length computed out of place (`kv_seq_len = key_states.shape[-2] + past_key.shape[-2]`).

Source: https://github.com/huggingface/optimum/issues/1606
"""
import torch
from torch import nn

CLASS = "exporter-defaults"
FAMILY = "shape_math"
CONTROL = True
DYNAMIC = {"key_states": {2: "seq"}, "past_key": {2: "past"}}


class Rotary(nn.Module):
    def forward(self, key_states, past_key):
        kv_seq_len = key_states.shape[-2] + past_key.shape[-2]
        positions = torch.arange(kv_seq_len, dtype=torch.float32)
        keys = torch.cat([past_key, key_states], dim=-2)
        return keys * torch.cos(positions)[None, None, :, None]


def make_model():
    return Rotary()


def example_inputs():
    return (torch.randn(1, 2, 3, 4), torch.randn(1, 2, 5, 4))


def other_inputs():
    return [(torch.randn(1, 2, 6, 4), torch.randn(1, 2, 2, 4)), (torch.randn(1, 2, 1, 4), torch.randn(1, 2, 9, 4))]


def probe_inputs():
    return other_inputs()
