"""ONX617 on TabPFN's sub-batched attention checks: `torch._check(num_parallel_calls >= 1)`
with `num_parallel_calls` the product of sizes, and `torch._check(q.shape[0] >= 1)`. torch.export
reads them as facts about its sizes; while the legacy exporter traces, sizes are tensors and
`torch._check` raises "cond must be a bool, but got a Tensor". The fix skips the checks under
the TorchScript tracer only (eager and torch.export run them as before)."""
import math

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x: torch.Tensor):
        q, k, v = self.qkv(x).unflatten(-1, (3, 2, 4)).permute(2, 0, 3, 1, 4)
        num_parallel_calls = math.prod(q.shape[:2])
        torch._check(num_parallel_calls >= 1)  # These checks help torch.compile.
        torch._check(q.shape[0] >= 1)
        return F.scaled_dot_product_attention(q, k, v).transpose(1, 2).flatten(2)


def make_model():
    torch.manual_seed(0)
    return Attention()


def example_inputs():
    return (torch.randn(2, 5, 8),)


def probe_inputs():
    return [(torch.randn(3, 7, 8),), (torch.randn(1, 2, 8),)]


DYNAMIC = {0: {0: "batch", 1: "tokens"}}
