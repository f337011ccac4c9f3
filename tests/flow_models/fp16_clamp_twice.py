"""ONX601: LongT5's and Pix2Struct's fp16 clamps, `if h.dtype == torch.float16 and
torch.isinf(h).any(): clamp_value = ...; h = torch.clamp(...)` twice in one function with the
same helper name, `h` the first item of a layer's output. Fixed like fp16_clamp.py; proven the same
way (float32: the dtype test skips the branch); eager bit-identity on float16 is in
tests/test_static_guard_where.py (the "repeated" cases)."""
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return (self.proj(x) * 1e4, x)


class ClampedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.ModuleList([Layer(), nn.ReLU()])  # elementwise: an inf stays an inf, no NaN

    def forward(self, x: torch.Tensor):
        outputs = self.layer[0](x)
        hidden_states = outputs[0]
        if hidden_states.dtype == torch.float16 and torch.isinf(hidden_states).any():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        hidden_states = self.layer[-1](hidden_states)
        if hidden_states.dtype == torch.float16 and torch.isinf(hidden_states).any():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return (hidden_states,) + outputs[1:]


def make_model():
    torch.manual_seed(0)
    return ClampedBlock()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 3, 4),)


def probe_inputs():
    torch.manual_seed(2)
    inf = torch.randn(3, 5, 4)
    inf[0, 1, 2] = float("inf")  # a float16 run would take the branch; float32 skips it on the dtype
    return [(torch.randn(2, 3, 4) * 1e3,), (inf,)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
