"""Single ConvTranspose2d with stride=1, dilation=2 and output_padding=1 (PyTorch allows output_padding
smaller than stride *or* dilation). The report: onnxruntime's ConvTranspose result disagrees with PyTorch
for output_padding >= stride with dilation; current onnxruntime rejects the node instead ("output_padding (1)
may be too large for stride (1)"), so the exported model cannot be run on the CPU provider.

Source: https://github.com/microsoft/onnxruntime/issues/14208
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
BLIND = "operators-31"


class Deconv(nn.Module):
    def __init__(self):
        super().__init__()
        self.deconv = torch.nn.ConvTranspose2d(1, out_channels=3, kernel_size=2, stride=1, padding=3, dilation=2,
                                               output_padding=1)
        # weight: All initialized to 1
        nn.init.ones_(self.deconv.weight)

    def forward(self, x):
        return self.deconv(x)


def make_model():
    return Deconv()


def example_inputs():
    return (torch.full((1, 1, 10, 10), 0.5),)


def other_inputs():
    return [(torch.randn(2, 1, 12, 9),), (torch.randn(3, 1, 7, 15),)]


def probe_inputs():
    return other_inputs()
