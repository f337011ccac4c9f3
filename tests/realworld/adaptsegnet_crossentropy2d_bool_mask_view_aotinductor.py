"""AdaptSegNet's CrossEntropy2d (utils/loss.py) keeps only the valid pixels with boolean masks,
`target = target[target_mask]` and `predict[target_mask.view(n, h, w, 1).repeat(1, 1, 1, c)].view(-1, c)`,
so the number of selected elements comes from the label values; the AOTInductor sweep over the 14k
paritybench models reports it failing in torch.export with "UserError: Tried to use data-dependent value
in the subsequent computation ... Please take a look at constrain_as_value OR constrain_as_size APIs"
(example ./generated/test_wasidennis_AdaptSegNet.py:CrossEntropy2d).

Source: https://github.com/pytorch/pytorch/issues/111252
"""
import torch
import torch.nn.functional as F
import torch.nn as nn
from torch.autograd import Variable

CLASS = "data-dependent-size"
FAMILY = "indexing"
DYNAMIC = {"predict": {0: "batch", 2: "height", 3: "width"}, "target": {0: "batch", 1: "height", 2: "width"}}
BLIND = "domains-83"


class CrossEntropy2d(nn.Module):

    def __init__(self, size_average=True, ignore_label=255):
        super(CrossEntropy2d, self).__init__()
        self.size_average = size_average
        self.ignore_label = ignore_label

    def forward(self, predict, target, weight=None):
        """
            Args:
                predict:(n, c, h, w)
                target:(n, h, w)
                weight (Tensor, optional): a manual rescaling weight given to each class.
                                           If given, has to be a Tensor of size "nclasses"
        """
        assert not target.requires_grad
        assert predict.dim() == 4
        assert target.dim() == 3
        assert predict.size(0) == target.size(0), "{0} vs {1} ".format(predict.size(0), target.size(0))
        assert predict.size(2) == target.size(1), "{0} vs {1} ".format(predict.size(2), target.size(1))
        assert predict.size(3) == target.size(2), "{0} vs {1} ".format(predict.size(3), target.size(3))
        n, c, h, w = predict.size()
        target_mask = (target >= 0) * (target != self.ignore_label)
        target = target[target_mask]
        if not target.data.dim():
            return Variable(torch.zeros(1))
        predict = predict.transpose(1, 2).transpose(2, 3).contiguous()
        predict = predict[target_mask.view(n, h, w, 1).repeat(1, 1, 1, c)].view(-1, c)
        loss = F.cross_entropy(predict, target, weight=weight, size_average=self.size_average)
        return loss


def make_model():
    return CrossEntropy2d().eval()


def _labels(n, h, w, c=19):
    target = torch.randint(0, c, (n, h, w))
    ignore = torch.rand(n, h, w) < 0.2
    return target.masked_fill(ignore, 255)


def example_inputs():
    return (torch.randn(2, 19, 33, 65), _labels(2, 33, 65))


def other_inputs():
    return [(torch.randn(3, 19, 41, 81), _labels(3, 41, 81)),
            (torch.randn(1, 19, 17, 29), _labels(1, 17, 29))]


def probe_inputs():
    return other_inputs()
