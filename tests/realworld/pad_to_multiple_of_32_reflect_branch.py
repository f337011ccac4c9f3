"""Conv model that pads its input to a multiple of 32: `pad_H = (32 - H % 32) % 32` from `inputs.shape`, then
`if pad_H > 0 or pad_W > 0:` applies `F.pad(..., mode='reflect')`; the report says torch.export with dynamic height
and width specializes on the example's branch (no padding for 224x224) instead of keeping the padding dynamic.

Source: https://github.com/pytorch/pytorch/issues/136216
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "size-branch"
FAMILY = "shape_math"
DYNAMIC = {"inputs": {2: "height", 3: "width"}}
BLIND = "domains-5"


class MinimalModel(nn.Module):
    def __init__(self):
        super(MinimalModel, self).__init__()
        # A simple convolution layer expecting 1 input channel
        self.conv = nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1)

    def forward(self, inputs):
        B, C, H, W = inputs.shape
        # Calculate necessary padding to make dimensions multiples of 32
        pad_H = (32 - H % 32) % 32
        pad_W = (32 - W % 32) % 32

        if pad_H > 0 or pad_W > 0:
            pad_top = pad_H // 2
            pad_bottom = pad_H - pad_top
            pad_left = pad_W // 2
            pad_right = pad_W - pad_left
            # Apply reflection padding
            inputs = F.pad(inputs, (pad_left, pad_right, pad_top, pad_bottom), mode='reflect')

        # Apply convolution
        outputs = self.conv(inputs)
        return outputs


def make_model():
    return MinimalModel().eval()


def example_inputs():
    return (torch.randn(1, 1, 224, 224),)


def other_inputs():
    return [(torch.randn(1, 1, 225, 250),), (torch.randn(1, 1, 96, 130),)]


def probe_inputs():
    return other_inputs()
