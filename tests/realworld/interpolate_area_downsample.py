"""A model that downsamples its feature map with `F.interpolate(x, scale_factor=self.sf, mode=self.interp_mode)`
where mode='area' and scale_factor=1/2; export fails ("Export to ONNX fails using F.interpolate with mode='area'"),
because 'area' is adaptive average pooling, which ONNX has no operator for.

Source: https://github.com/pytorch/pytorch/issues/41009
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-4"


# Model Architecture with Interpolate function
class MyModel(nn.Module):
    def __init__(self, scale_factor, mode):
        super(MyModel, self).__init__()
        self.interp_mode = mode
        self.sf = scale_factor
        self.conv_in = nn.Conv2d(1, 8, 3, padding=1)
        self.conv_out = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.conv_in(x))
        x = F.interpolate(x,
                          scale_factor=self.sf,
                          mode=self.interp_mode)
        return self.conv_out(x)


def make_model():
    # initialize model object
    scale_factor = 1/2
    mode = 'area'
    return MyModel(scale_factor, mode).eval()


def example_inputs():
    return (torch.randn(1, 1, 100, 100),)


def other_inputs():
    return [(torch.randn(2, 1, 75, 120),), (torch.randn(3, 1, 64, 37),)]


def probe_inputs():
    return other_inputs()
