"""A NAS-generated block: 1x1 Conv2d, a `SqrtWrapper` (torch.sqrt, so negative conv outputs become NaN),
`Flatten(start_dim=2)` and a MaxPool1d; the report says after ONNX export onnxruntime's MaxPool1d gives
-FLT_MAX (-3.402823e+38) or a finite value where the reference gives NaN ("x and y nan location
mismatch").

Source: https://github.com/microsoft/onnxruntime/issues/24819
"""
import torch
import torch.nn as nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-14"


class SqrtWrapper(nn.Module):
    def forward(self, x):
        return torch.sqrt(x)


class SimpleBugModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_conv = torch.nn.modules.conv.Conv2d(in_channels=3, out_channels=16, kernel_size=1)
        self.block1 = SqrtWrapper()
        self.block2 = torch.nn.modules.flatten.Flatten(start_dim=2)
        self.block3 = torch.nn.modules.pooling.MaxPool1d(kernel_size=2)

    def forward(self, x):
        x = self.input_conv(x)
        x = self.block1(x)
        x = self.block2(x)
        x = self.block3(x)
        return x


def make_model():
    return SimpleBugModel().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)


def other_inputs():
    return [(torch.randn(2, 3, 6, 10),), (torch.randn(3, 3, 12, 4),)]


def probe_inputs():
    return other_inputs()
