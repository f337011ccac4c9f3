"""Detic's box head (detectron2's Instances): the per-image outputs are split by
`[len(p) for p in proposals]`, where `Instances.__len__` returns its boxes' `tensor.shape[0]`.
Python's `len()` turns that traced size into an int, so the legacy export keeps the export-time
count per image and onnxruntime fails on other counts. The run saw `p` hold `Instances`, whose
`__len__` this file defines: `p.__len__()` returns the size itself."""
import torch
from torch import nn

DYNAMIC = {"first": {0: "boxes_first"}, "second": {0: "boxes_second"}}


class Boxes:
    def __init__(self, tensor):
        self.tensor = tensor

    def __len__(self):
        return self.tensor.shape[0]


class Instances:
    def __init__(self, **fields):
        self._fields = fields

    def __len__(self):
        for v in self._fields.values():
            return v.__len__()
        raise NotImplementedError("Empty Instances does not support __len__!")


class BoxHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 3)

    def forward(self, first, second):
        proposals = [Instances(boxes=Boxes(first)), Instances(boxes=Boxes(second))]
        scores = self.score(torch.cat([first, second])).softmax(-1)
        per_image = [len(p) for p in proposals]
        a, b = scores.split(per_image, dim=0)
        return torch.cat([a.sum(0), b.mean(0)])


def make_model():
    torch.manual_seed(0)
    return BoxHead().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.rand(3, 4), torch.rand(5, 4))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.rand(4, 4), torch.rand(2, 4)), (torch.rand(6, 4), torch.rand(7, 4))]
