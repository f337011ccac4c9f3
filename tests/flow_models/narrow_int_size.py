"""ONX207: chemprop's mean aggregation sizes its output by `batch.max().int() + 1`, an int32
tensor. The legacy exporter joins it to the int64 feature size in a Concat that onnxruntime
refuses ("bound to different types"). Fixed (safely) by casting to int64 while tracing only."""
import torch
from torch import nn


class MeanAggregation(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, h: torch.Tensor, batch: torch.Tensor):
        h = torch.relu(self.proj(h))
        dim_size = batch.max().int() + 1
        index = batch.unsqueeze(1).expand(-1, h.shape[1])
        total = torch.zeros(dim_size, h.shape[1]).scatter_add_(0, index, h)
        count = torch.zeros(dim_size).scatter_add_(0, batch, torch.ones_like(batch, dtype=h.dtype))
        mean = total / count.clamp(min=1).unsqueeze(1)
        return mean.view(dim_size, 2, -1)


def make_model():
    torch.manual_seed(0)
    return MeanAggregation()


def _graphs(sizes, seed):
    batch = torch.cat([torch.full((n,), i) for i, n in enumerate(sizes)])
    return (torch.randn(len(batch), 6, generator=torch.Generator().manual_seed(seed)), batch)


def example_inputs():
    return _graphs([3, 4], 0)


def probe_inputs():
    return [_graphs([2, 5, 3, 4], 1), _graphs([6], 2)]


DYNAMIC = {0: {0: "nodes"}, 1: {0: "nodes"}}
