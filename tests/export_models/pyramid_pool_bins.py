"""PSPNet's pyramid pooling (bubbliiiing/pspnet-pytorch#19): `nn.AdaptiveAvgPool2d(bin)` inside an
nn.Sequential built by a helper, on a feature map of dynamic size that the bins do not divide:
legacy "Unsupported: ONNX export of operator adaptive_avg_pool2d, input size not accessible". The
run names the operator; its decomposition is substituted while exporting."""
import torch
import torch.nn.functional as F
from torch import nn


def _stage(channels, bins):
    return nn.Sequential(nn.AdaptiveAvgPool2d(output_size=bins), nn.Conv2d(channels, 2, 1))


class PyramidPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleList([_stage(4, bins) for bins in (1, 3, 6)])

    def forward(self, x):
        h, w = x.size()[2], x.size()[3]
        return torch.cat([x] + [F.interpolate(stage(x), size=(h, w), mode="bilinear", align_corners=True)
                                for stage in self.stages], dim=1)


def make_model():
    torch.manual_seed(0)
    return PyramidPool().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 4, 16, 16),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 4, 13, 20),), (torch.randn(2, 4, 7, 9),)]


DYNAMIC = {0: {2: "height", 3: "width"}}
