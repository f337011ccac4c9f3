"""SegNet's decoder unpools through the nn.MaxUnpool2d module with the encoder's `output_size`: the
legacy tracer makes the sizes tensors and F.max_unpool2d's size check fails on them ("cond must be
a bool, but got a Tensor"), inside torch's own function, a spelling no static rule sees."""
import torch
from torch import nn


class SegNetStage(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.conv = nn.Conv2d(3, c, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, 2)
        self.out = nn.Conv2d(c, 3, 3, padding=1)

    def forward(self, x):
        features = self.conv(x)
        unpooled_shape = features.size()
        pooled, indices = self.pool(features)
        return self.out(self.unpool(input=pooled, indices=indices, output_size=unpooled_shape))


def make_model():
    torch.manual_seed(0)
    return SegNetStage().eval()


def example_inputs():
    torch.manual_seed(1)
    return (torch.randn(1, 3, 12, 16),)


def probe_inputs():
    torch.manual_seed(2)
    return [(torch.randn(2, 3, 13, 9),), (torch.randn(1, 3, 20, 20),)]
