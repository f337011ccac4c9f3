"""ONX601: the BART-family fp16 clamp, `if h.dtype == torch.float16 and not
torch.isfinite(h).all(): h = torch.clamp(...)`. The dtype test is decided at export; the tensor
test is not. Fixed by keeping the dtype test as the `if` and selecting with `torch.where`. Proven
on float32 (onnxruntime's CPU float16 coverage is thin), where the dtype test skips the branch,
with an inf in the inputs; eager bit-identity on float16 is in tests/test_static_guard_where.py."""
import torch
from torch import nn


class ClampedLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor):
        hidden_states = self.proj(x) * 1e4
        if hidden_states.dtype == torch.float16 and not torch.isfinite(hidden_states).all():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


def make_model():
    torch.manual_seed(0)
    return ClampedLayer()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(2, 3, 4),)


def probe_inputs():
    torch.manual_seed(2)
    inf = torch.randn(3, 5, 4)
    inf[0, 1, 2] = float("inf")  # a float16 run would take the branch; float32 skips it on the dtype
    return [(torch.randn(2, 3, 4) * 1e3,), (inf,)]


DYNAMIC = {0: {0: "batch", 1: "seq"}}
