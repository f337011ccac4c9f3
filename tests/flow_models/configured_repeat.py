"""ONX603: ML-Agents' entity embedding, `torch.cat([x] * n, dim=1)` with `n` configured or, when it
is not, read from the input's entity dim."""
import torch
from torch import nn


class EntityEmbedding(nn.Module):
    def __init__(self, max_entities: int = -1):
        super().__init__()
        self.max_entities = max_entities
        self.encode = nn.Linear(6, 8)

    def forward(self, x_self: torch.Tensor, entities: torch.Tensor):
        count = self.max_entities
        if count < 0:
            count = entities.shape[1]
        expanded = x_self.reshape(-1, 1, x_self.shape[-1])
        expanded = torch.cat([expanded] * count, dim=1)
        return self.encode(torch.cat([expanded, entities], dim=2)).amax(1)


def make_model():
    torch.manual_seed(0)
    return EntityEmbedding().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 4), torch.randn(2, 5, 2))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 4), torch.randn(3, 9, 2)), (torch.randn(1, 4), torch.randn(1, 2, 2))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch", 1: "entities"}}
