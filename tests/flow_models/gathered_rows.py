"""ONX603: Reformer's axial position encodings, each row's positions selected from its own
encodings in a comprehension over the batch. Dynamo specializes the batch; legacy unrolls it for
the export-time batch. Fixed (unsafely: gather needs the encodings at least 2-D) by one gather."""
import torch
from torch import nn


class AxialPositions(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(16, 4))

    def forward(self, position_ids: torch.Tensor):
        batch_size = position_ids.shape[0]
        encodings = self.weights.expand(batch_size, -1, -1) * 1.5
        return torch.cat(
            [torch.index_select(encodings[i], 0, position_ids[i]).unsqueeze(0) for i in range(batch_size)],
            dim=0,
        )


def make_model():
    torch.manual_seed(0)
    return AxialPositions()


def example_inputs():
    return (torch.tensor([[0, 3, 5, 15, 2], [7, 7, 1, 0, 9]]),)


def probe_inputs():
    return [(torch.tensor([[4, 2, 11, 8, 6], [1, 2, 3, 4, 5]]),), (torch.tensor([[9, 8, 7], [0, 1, 2], [5, 5, 5]]),)]


DYNAMIC = {0: {0: "batch", 1: "positions"}}
