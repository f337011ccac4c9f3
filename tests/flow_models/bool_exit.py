"""ONX601: a check that returns Python bools on tensor tests (kornia's `validate_bbox`), its answer
used: `torch.where` with bool branches, which the legacy exporter takes only as tensors."""
import torch
from torch import nn


def boxes_valid(boxes: torch.Tensor) -> bool:
    width = boxes[..., 2] - boxes[..., 0]
    if torch.any(width < 0):
        return False
    if torch.any(boxes[..., 3] < boxes[..., 1]):
        return False
    return True


class ValidBoxes(nn.Module):
    def forward(self, boxes: torch.Tensor):
        return boxes * boxes_valid(boxes)


def make_model():
    return ValidBoxes()


def example_inputs():
    return (torch.tensor([[0.0, 0.0, 2.0, 3.0], [1.0, 1.0, 4.0, 2.0]]),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.tensor([[0.0, 0.0, -2.0, 3.0], [1.0, 1.0, 4.0, 2.0], [0.0, 0.0, 1.0, 1.0]]),),
            (torch.tensor([[0.0, 5.0, 2.0, 3.0]]),), (torch.rand(5, 4).cumsum(-1),)]


DYNAMIC = {0: {0: "batch"}}
