"""Transformers4Rec's concat aggregation (NVIDIA-Merlin/Transformers4Rec#469): features must share
(batch, length), checked by hashing their shapes in a `set`. torch.export cannot hash the SymInt
sizes ("unhashable type: non-nested SymInt"); the legacy tracer's sizes are tensors, hashed by
identity, so the set has two members and the check raises. Eager passes it on the same inputs: the
run notes where each export raised, and ONX601 skips the check while exporting."""
import torch
from torch import nn

DYNAMIC = {"items": {0: "batch", 1: "length"}, "context": {0: "batch", 1: "length"}}


class SharedShapeConcat(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(12, 4)

    def forward(self, items, context):
        shapes = {"items": tuple(items.shape[:2]), "context": tuple(context.shape[:2])}
        if len(set(shapes.values())) > 1:
            raise ValueError(f"features must share (batch, length): {shapes}")
        return self.proj(torch.cat([items, context], dim=-1))


def make_model():
    torch.manual_seed(0)
    return SharedShapeConcat().eval()


def _inputs(batch, length, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, length, 8, generator=g), torch.randn(batch, length, 4, generator=g)


def example_inputs():
    return _inputs(2, 5, 0)


def probe_inputs():
    return [_inputs(3, 7, 1), _inputs(1, 2, 2)]
