"""Raw-waveform keyword/audio classifier (16000-sample input) built from dilated 1-D conv blocks
with `padding='same'` followed by BatchNorm. The exported model loads but onnxruntime fails on
the Conv nodes: "Dilation not supported for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER".

Source: https://github.com/microsoft/onnxruntime/issues/20582
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 1: "samples"}}
BLIND = "operators-3"


class TemporalBlock(nn.Module):
    def __init__(self, channels, dilation):
        super().__init__()
        self.f1 = nn.Sequential(
            nn.Conv1d(channels, channels, kernel_size=3, padding='same', dilation=dilation),
            nn.BatchNorm1d(channels),
            nn.ReLU(),
        )

    def forward(self, x):
        return x + self.f1(x)


class AudioTCN(nn.Module):
    def __init__(self, channels=16, n_classes=6):
        super().__init__()
        self.front = nn.Conv1d(1, channels, kernel_size=80, stride=16)
        self.t1 = TemporalBlock(channels, dilation=2)
        self.t2 = TemporalBlock(channels, dilation=4)
        self.head = nn.Linear(channels, n_classes)

    def forward(self, x):
        # x: (batch, samples) mono waveform
        x = self.front(x.unsqueeze(1))
        x = self.t2(self.t1(x))
        return self.head(x.mean(dim=-1))


def make_model():
    m = AudioTCN()
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm1d):
            mod.running_mean.uniform_(-0.1, 0.1)
            mod.running_var.uniform_(0.8, 1.2)
    return m.eval()


def example_inputs():
    return (torch.randn(2, 16000),)


def other_inputs():
    return [(torch.randn(3, 12000),), (torch.randn(1, 20000),)]


def probe_inputs():
    return other_inputs()
