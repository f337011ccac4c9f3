"""ONX403 with an int beside the size: WeNet's streaming encoder keeps the last
`required_cache_size` frames of its attention cache, `next_cache_start = max(attention_key_size -
required_cache_size, 0)`. While the legacy exporter traces, the size is a tensor and `max` keeps
the export-time winner: silently wrong once the cache grows. Fixed safely: the builtin in eager,
the max of the stacked values while tracing."""
import torch
from torch import nn


class CacheStart(nn.Module):
    def __init__(self, required_cache_size: int = 6):
        super().__init__()
        self.required_cache_size = required_cache_size
        self.proj = nn.Linear(4, 4)

    def forward(self, xs, att_cache):
        attention_key_size = att_cache.size(1) + xs.size(1)
        new_cache = torch.cat([att_cache, self.proj(xs)], dim=1)
        next_cache_start = max(attention_key_size - self.required_cache_size, 0)
        return new_cache[:, next_cache_start:, :]


def make_model():
    torch.manual_seed(0)
    return CacheStart()


def example_inputs():
    return (torch.randn(1, 2, 4), torch.randn(1, 2, 4))


def probe_inputs():
    return [(torch.randn(1, 3, 4), torch.randn(1, 8, 4)), (torch.randn(1, 4, 4), torch.randn(1, 1, 4))]


DYNAMIC = {0: {1: "chunk"}, 1: {1: "cache"}}
