"""ONX703: rows written back through an index the data selected (detectron2's ROIPooler,
pytorch#49852: `output[inds] = pooler(...)`, `inds` from `nonzero()`): traced with one selected row,
the legacy exporter bakes that row count into a Reshape and onnxruntime fails for any other."""
import torch
from torch import nn


class LevelPooler(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, feature: torch.Tensor, levels: torch.Tensor):
        output = torch.zeros(levels.shape[0], 4)
        for level in range(2):
            inds = (levels == level).nonzero().unbind(1)[0]
            output[inds] = self.proj(feature[inds]) * (level + 1)
        return output


def make_model():
    torch.manual_seed(0)
    return LevelPooler().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4), torch.tensor([0, 1, 1]))  # one row on level 0


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(5, 4), torch.tensor([0, 0, 1, 0, 1])), (torch.randn(2, 4), torch.tensor([1, 0]))]


DYNAMIC = {0: {0: "boxes"}, 1: {0: "boxes"}}
