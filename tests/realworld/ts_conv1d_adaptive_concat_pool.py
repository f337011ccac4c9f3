"""1-D convolutional time-series classifier (Lightning model in the report) whose head is fastai's
AdaptiveConcatPool1d, concatenating `nn.AdaptiveMaxPool1d(sz)` and `nn.AdaptiveAvgPool1d(sz)`;
export fails with "Unsupported: ONNX export of operator adaptive_max_pool1d, since output size is
not factor of input size". (The report does not give `sz`; 4 is used here, with series lengths
that 4 does not divide.)

Source: https://github.com/pytorch/pytorch/issues/61172
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "length"}}
BLIND = "operators-2"


class AdaptiveConcatPool1d(nn.Module):
    """Layer that concats `AdaptiveAvgPool2d` and `AdaptiveMaxPool2d`.
    Adapted from:
    https://fastai1.fast.ai/layers.html#AdaptiveConcatPool2d
    https://github.com/fastai/fastai1/blob/master/fastai/layers.py#L176
    """

    def __init__(self, sz=None):
        "Output will be 2*sz or 2 if sz is None"
        super().__init__()
        self.output_size = sz or 1
        self.ap = nn.AdaptiveAvgPool1d(self.output_size)
        self.mp = nn.AdaptiveMaxPool1d(self.output_size)

    def forward(self, x):
        return torch.cat([self.mp(x), self.ap(x)], 2)


class ConvClassifier(nn.Module):  # pl.LightningModule in the report
    def __init__(self, in_channels=3, n_classes=5, sz=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(in_channels, 32, kernel_size=7, padding=3), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 64, kernel_size=5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, kernel_size=3, padding=1), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.pool = AdaptiveConcatPool1d(sz)
        self.out = nn.Linear(64 * 2 * sz, n_classes)

    def forward(self, x):
        x = self.features(x)
        x = self.pool(x)
        return self.out(x.flatten(1))


def make_model():
    return ConvClassifier()


def example_inputs():
    return (torch.randn(2, 3, 150),)


def other_inputs():
    return [(torch.randn(4, 3, 97),), (torch.randn(1, 3, 301),)]


def probe_inputs():
    return other_inputs()
