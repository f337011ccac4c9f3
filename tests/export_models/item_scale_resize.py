"""RIFE's flow block (pytorch#82068): the resize scale is read out of an input tensor,
`scale = scale.item()`, then `F.interpolate(x, scale_factor=1. / scale, mode="bilinear")` down and
`scale_factor=scale` back up (the mask with align_corners=True). torch.export refuses the SymFloat scale
("upsample_bilinear2d(): argument 'scale_factors' must be tuple of floats, but found element of
type SymFloat"); `onnxfix export --fix` resizes by interpolation matrices built from it while
exporting (`_onnx_interpolate`, the `interpolate` decomposition keyed on that error)."""
import torch
import torch.nn.functional as F
from torch import nn


class FlowBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(4, 3, 4, stride=2, padding=1)

    def forward(self, x, scale):
        scale = scale.item()
        small = F.interpolate(x, scale_factor=1. / scale, mode="bilinear", align_corners=False)
        flow = self.up(torch.relu(self.conv(small)))
        mask = F.interpolate(flow[:, :1], scale_factor=scale, mode="bilinear", align_corners=True)
        return F.interpolate(flow, scale_factor=scale, mode="bilinear", align_corners=False) * mask


def make_model():
    torch.manual_seed(0)
    return FlowBlock().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 16, 16), torch.tensor(2.0))


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 3, 24, 16), torch.tensor(4.0)), (torch.randn(1, 3, 16, 24), torch.tensor(1.0)),
            (torch.randn(2, 3, 10, 20), torch.tensor(1 / 0.7))]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
