"""ONX303: keypoints decoded in place through a slice held in a name (YOLOv7-pose's IKeypoint:
`x_kpt = x[i][..., 6:]; x_kpt[..., 0::3] = ...`, then `x_kpt` read again): the legacy exporter
makes the slice a copy, so neither `x[i]` nor the later read sees the writes."""
import torch
from torch import nn


class KeypointHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 12, 1)

    def forward(self, feature: torch.Tensor):
        x = [self.conv(feature).permute(0, 2, 3, 1).contiguous()]
        for i in range(len(x)):
            x_kpt = x[i][..., 6:]
            x_kpt[..., 0::3] = (x_kpt[..., ::3] * 2.0 - 0.5) * 8
            x_kpt[..., 1::3] = x_kpt[..., 1::3] + 1.0
            x_kpt[..., 2::3] = x_kpt[..., 2::3].sigmoid()
            y = torch.cat((x[i][..., :6].sigmoid(), x_kpt), dim=-1)
        return y, x[0]


def make_model():
    torch.manual_seed(0)
    return KeypointHead().eval()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 4, 5, 6),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(3, 4, 7, 4),), (torch.randn(1, 4, 5, 6),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
