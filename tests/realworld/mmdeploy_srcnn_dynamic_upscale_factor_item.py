"""SRCNN super-resolution with a run-time upscale factor (OpenMMLab model-deployment tutorial, chapter 2): the
factor is passed as a tensor and turned into a number with `upscale_factor.item()` for
`interpolate(scale_factor=...)`; the export gives a TracerWarning and the ONNX model has only the `input` input,
the factor of the export (3) frozen into the graph.

Source: https://github.com/open-mmlab/mmdeploy/blob/main/docs/zh_cn/tutorial/02_challenges.md
"""
import torch
from torch import nn
from torch.nn.functional import interpolate

CLASS = "item-assigned"
FAMILY = "scalars"
DYNAMIC = {"x": {2: "height", 3: "width"}}
BLIND = "domains-15"


class SuperResolutionNet(nn.Module):

    def __init__(self):
        super().__init__()

        self.conv1 = nn.Conv2d(3, 64, kernel_size=9, padding=4)
        self.conv2 = nn.Conv2d(64, 32, kernel_size=1, padding=0)
        self.conv3 = nn.Conv2d(32, 3, kernel_size=5, padding=2)

        self.relu = nn.ReLU()

    def forward(self, x, upscale_factor):
        x = interpolate(x,
                        scale_factor=upscale_factor.item(),
                        mode='bicubic',
                        align_corners=False)
        out = self.relu(self.conv1(x))
        out = self.relu(self.conv2(out))
        out = self.conv3(out)
        return out


def make_model():
    return SuperResolutionNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 32, 32), torch.tensor(3))


def other_inputs():
    return [(torch.randn(1, 3, 24, 40), torch.tensor(2)),
            (torch.randn(1, 3, 20, 28), torch.tensor(4))]


def probe_inputs():
    return other_inputs()
