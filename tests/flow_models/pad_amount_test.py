"""ONX608 on the pad amounts: `if pad_H > 0 or pad_W > 0:` around a reflection pad to a multiple
of 32 split in halves (pytorch#136216); where the test fails every pad is 0."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(1, 4, kernel_size=3, stride=1, padding=1)

    def forward(self, inputs):
        B, C, H, W = inputs.shape
        pad_H = (32 - H % 32) % 32
        pad_W = (32 - W % 32) % 32
        if pad_H > 0 or pad_W > 0:
            pad_top = pad_H // 2
            pad_bottom = pad_H - pad_top
            pad_left = pad_W // 2
            pad_right = pad_W - pad_left
            inputs = F.pad(inputs, (pad_left, pad_right, pad_top, pad_bottom), mode="reflect")
        return self.conv(inputs)


def make_model():
    return Model()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 1, 64, 64),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(1, 1, 45, 50),), (torch.randn(2, 1, 33, 96),)]


DYNAMIC = {0: {0: "b", 2: "h", 3: "w"}}
