"""ComfyUI's manual-cast layers (Comfy-Org/ComfyUI 8ae23d8): weights stored in float16 are cast to the
input's dtype by `r = torch.empty_like(weight, dtype=dtype); r.copy_(weight)`. The legacy exporter turns
the whole-tensor copy_ into `aten::copy`, which it has no symbolic for; copy_symbolic, named by that
error, exports it as the weight cast and broadcast to the new tensor's shape."""
import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x": {0: "batch", 1: "tokens"}}


def cast_to(weight, dtype):
    r = torch.empty_like(weight, dtype=dtype)
    r.copy_(weight)
    return r


class ManualCastLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, cast_to(self.weight, x.dtype), cast_to(self.bias, x.dtype))


def make_model():
    torch.manual_seed(0)
    return ManualCastLinear(16, 8).half().eval()


def _inputs(batch, tokens, seed):
    return (torch.randn(batch, tokens, 16, generator=torch.Generator().manual_seed(seed)),)


def example_inputs():
    return _inputs(2, 5, 0)


def probe_inputs():
    return [_inputs(3, 7, 1), _inputs(1, 2, 2)]
