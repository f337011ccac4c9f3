"""A user's "ave_pool2d attention" block taken to TensorRT with dynamic shapes: the feature map is pooled down to
one row with `F.avg_pool2d(q, [h, 1])`, where `h` (and the other sizes) come from
`torch.tensor(q.shape[2]).item()`; the post says this pooling over the whole height is not supported with dynamic
shapes, since the kernel is frozen to the height seen at export and other heights give a different result.
(The rest of the attention block, a 1x1 conv and a sigmoid gate, is filled in around the reported lines.)

Source: https://blog.csdn.net/u011622208/article/details/120304656
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "domains-35"


class AvePoolAttention(nn.Module):
    def __init__(self, in_channels=16, mid_channels=8):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, mid_channels, 1)
        self.conv2 = nn.Conv2d(mid_channels, in_channels, 1)

    def forward(self, x):
        q = self.conv1(x)
        batchsize, c_middle, h, w = torch.tensor(q.shape[0]).item(),torch.tensor(q.shape[1]).item(),torch.tensor(q.shape[2]).item(),torch.tensor(q.shape[3]).item() #q.size()
        q = F.avg_pool2d(q, [h, 1])
        att = torch.sigmoid(self.conv2(q))
        return x * att


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.att = AvePoolAttention(16, 8)
        self.head = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        return self.head(self.att(self.stem(x)))


def make_model():
    return Net().eval()


def example_inputs():
    return (torch.randn(2, 3, 32, 48),)


def other_inputs():
    return [(torch.randn(3, 3, 40, 24),), (torch.randn(1, 3, 20, 64),)]


def probe_inputs():
    return other_inputs()
