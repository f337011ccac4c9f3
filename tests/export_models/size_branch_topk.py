"""Keeps the `k` best scores when there are more (mmdetection's RPN `nms_pre`): torch.export takes
the example's side of `if scores.shape[0] > self.k` for every size (ONX915)."""
import torch
from torch import nn


class Proposals(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.k = k
        self.proj = nn.Linear(4, 4)

    def forward(self, scores, boxes):
        scores = scores.flatten()
        boxes = self.proj(boxes.reshape(-1, 4))
        if scores.shape[0] > self.k:
            # sort is faster than topk
            ranked, order = scores.sort(descending=True)
            scores = ranked[: self.k]
            boxes = boxes[order[: self.k]]
        return boxes * scores[:, None]


def make_model():
    torch.manual_seed(0)
    return Proposals().eval()


def example_inputs():
    return (torch.rand(1, 6, 5), torch.rand(1, 6, 5, 4))


def probe_inputs():
    return [(torch.rand(2, 6, 5), torch.rand(2, 6, 5, 4)), (torch.rand(1, 3, 4), torch.rand(1, 3, 4, 4))]
