"""AdaptSegNet's CrossEntropy2d (pytorch#111252): the loss over the labelled pixels only, selected
by a boolean mask. torch's reference decomposition of nll_loss asks whether the rows are empty,
which torch.export cannot decide on the mask's unbacked count (the dynamo exporter fails in its
decomposition step); the run names cross_entropy_rows and nll_rows."""

import torch
import torch.nn.functional as F
from torch import nn


class MaskedPixelLoss(nn.Module):
    def __init__(self, ignore_label=255):
        super().__init__()
        self.ignore_label = ignore_label

    def forward(self, predict, target):
        n, c, h, w = predict.size()
        target_mask = (target >= 0) * (target != self.ignore_label)
        target = target[target_mask]
        predict = predict.transpose(1, 2).transpose(2, 3).contiguous()
        predict = predict[target_mask.view(n, h, w, 1).repeat(1, 1, 1, c)].view(-1, c)
        return F.cross_entropy(predict, target)


def make_model():
    return MaskedPixelLoss()


def _labels(n, h, w, seed):
    g = torch.Generator().manual_seed(seed)
    target = torch.randint(0, 5, (n, h, w), generator=g)
    return target.masked_fill(torch.rand(n, h, w, generator=g) < 0.2, 255)


def example_inputs():
    return (torch.randn(2, 5, 6, 7, generator=torch.Generator().manual_seed(0)), _labels(2, 6, 7, 0))


def probe_inputs():
    return [(torch.randn(3, 5, 4, 9, generator=torch.Generator().manual_seed(1)), _labels(3, 4, 9, 1))]
