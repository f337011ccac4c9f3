"""ONX603: SAM's multimask selection (pytorch#122180): the best of each image's masks picked in a
Python loop over the batch (`torch.stack([x[idx, i] for idx, i in enumerate(indices)])`) becomes
one advanced index, the row numbers against the picks."""
import torch
from torch import nn


class BestMask(nn.Module):
    def __init__(self, width=8, masks=3):
        super().__init__()
        self.masks = nn.Conv2d(width, masks, 1)
        self.scores = nn.Linear(width, masks)

    def forward(self, features: torch.Tensor):
        x = self.masks(features)
        selector = self.scores(features.mean((2, 3)))
        indices = torch.max(selector, dim=1)[1]
        x = torch.stack([x[idx, i] for idx, i in enumerate(indices)])
        return x


def make_model():
    torch.manual_seed(0)
    return BestMask().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 8, 6, 5),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(4, 8, 6, 5),), (torch.randn(1, 8, 6, 5),), (torch.randn(3, 8, 6, 5),)]


DYNAMIC = {0: {0: "batch"}}
