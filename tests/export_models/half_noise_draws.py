"""A VITS-style prior converted to float16 draws its noise in the half dtype
(`torch.randn(m.size(), dtype=m.dtype)`): torch.onnx writes a float16 RandomNormalLike for the factory,
which onnxruntime's CPU provider has no kernel for (NOT_IMPLEMENTED); the generator's float16
`torch.rand_like(h)` runs as it is. float32_compute, named by that error, draws in float32 and casts; the sampled
output is not compared (no export draws what PyTorch's generator does), the deterministic one is."""
import torch
from torch import nn


class HalfPrior(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv1d(4, 8, 1)

    def forward(self, x):
        stats = self.proj(x)
        m, logs = stats.chunk(2, dim=1)
        z = m + torch.randn(m.size(), dtype=m.dtype) * torch.exp(logs) * 0.5
        jitter = torch.rand_like(m) * 0.01
        return m * 2, z + jitter


def make_model():
    return HalfPrior().half()


def example_inputs():
    return (torch.randn(2, 4, 6, dtype=torch.float16),)


def probe_inputs():
    return [(torch.randn(1, 4, 9, dtype=torch.float16),), (torch.randn(3, 4, 5, dtype=torch.float16),)]


DYNAMIC = {0: {0: "b", 2: "t"}}
