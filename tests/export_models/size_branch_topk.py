"""Doubles the boxes when there are as many as the table's rows, adds its average otherwise, scales by a factor picked on the length, and
keeps the `k` best scores when there are more (mmdetection's RPN `nms_pre`): torch.export
takes the example's side of each test for every size (ONX914/ONX915)."""
import torch
from torch import nn


class Proposals(nn.Module):
    def __init__(self, k=40):
        super().__init__()
        self.k = k
        self.proj = nn.Linear(4, 4)
        self.table = nn.Parameter(torch.rand(30, 4))  # the example's length

    def forward(self, scores, boxes):
        scores = scores.flatten()
        boxes = self.positions(self.proj(boxes.reshape(-1, 4)))
        boxes = boxes * 2 if boxes.shape[0] > 30 else boxes - 1
        if scores.shape[0] > self.k:
            # sort is faster than topk
            ranked, order = scores.sort(descending=True)
            scores = ranked[: self.k]
            boxes = boxes[order[: self.k]]
        return boxes * scores[:, None]

    def positions(self, x):
        n = x.shape[0]
        if n == self.table.shape[0]:
            return x * 2
        table = self.table.mean(0, keepdim=True)  # the average position for other lengths
        return x + table


def make_model():
    torch.manual_seed(0)
    return Proposals().eval()


def example_inputs():
    return (torch.rand(1, 6, 5), torch.rand(1, 6, 5, 4))


def probe_inputs():
    return [(torch.rand(2, 6, 5), torch.rand(2, 6, 5, 4)), (torch.rand(1, 3, 4), torch.rand(1, 3, 4, 4)),
            (torch.rand(1, 5, 1), torch.rand(1, 5, 1, 4))]
