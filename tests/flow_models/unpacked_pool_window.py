"""ONX408 on segmentation_models_pytorch's MobileOne SE block: `b, c, h, w = inputs.size()`, then
`F.avg_pool2d(inputs, kernel_size=[h, w])`, a global pooling whose window is unpacked from the
input's size. torch.export specializes the window to the example's size (silently wrong for other
sizes) and the legacy exporter cannot read the window ("Failed to export a node ... Gather").
Fixed safely: `_onnx_whole_pool` runs the pooling in eager and a mean over those axes while exporting."""
import torch
import torch.nn.functional as F
from torch import nn


class SEBlock(nn.Module):
    def __init__(self, channels=8, rd_ratio=0.25):
        super().__init__()
        self.reduce = nn.Conv2d(channels, int(channels * rd_ratio), 1)
        self.expand = nn.Conv2d(int(channels * rd_ratio), channels, 1)

    def forward(self, inputs):
        b, c, h, w = inputs.size()
        x = F.avg_pool2d(inputs, kernel_size=[h, w])
        x = self.expand(F.relu(self.reduce(x)))
        return inputs * torch.sigmoid(x).view(-1, c, 1, 1)


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.se = SEBlock()

    def forward(self, x):
        return self.se(F.relu(self.conv(x)))


def make_model():
    torch.manual_seed(0)
    return Stem()


def example_inputs():
    return (torch.randn(2, 3, 32, 24),)


def probe_inputs():
    return [(torch.randn(3, 3, 20, 36),), (torch.randn(1, 3, 16, 16),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
