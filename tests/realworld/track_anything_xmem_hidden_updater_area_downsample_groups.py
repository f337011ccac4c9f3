"""Track-Anything's XMem decoder: HiddenUpdater fuses the 1/16, 1/8 and 1/4 group features, shrinking the
finer two with `downsample_groups` (F.interpolate, scale_factor 1/2 and 1/4, mode='area'). Qualcomm's AI Hub
wrapper patches it to bilinear because "Interpolate with area mode is not exportable" (area resize lowers to
adaptive_avg_pool2d whose output size follows the input size).

Source: https://github.com/quic/ai-hub-models/blob/main/qai_hub_models/models/track_anything/model.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {
    "g16": {0: "batch", 1: "objects", 3: "h16", 4: "w16"},
    "g8": {0: "batch", 1: "objects", 3: "h8", 4: "w8"},
    "g4": {0: "batch", 1: "objects", 3: "h4", 4: "w4"},
    "h": {0: "batch", 1: "objects", 3: "h16", 4: "w16"},
}
BLIND = "operators-40"


def interpolate_groups(g, ratio, mode, align_corners):
    batch_size, num_objects = g.shape[:2]
    g = F.interpolate(g.flatten(start_dim=0, end_dim=1),
                scale_factor=ratio, mode=mode, align_corners=align_corners)
    g = g.view(batch_size, num_objects, *g.shape[1:])
    return g

def downsample_groups(g, ratio=1/2, mode='area', align_corners=None):
    return interpolate_groups(g, ratio, mode, align_corners)


class GConv2D(nn.Conv2d):
    def forward(self, g):
        batch_size, num_objects = g.shape[:2]
        g = super().forward(g.flatten(start_dim=0, end_dim=1))
        return g.view(batch_size, num_objects, *g.shape[1:])


class HiddenUpdater(nn.Module):
    # Used in the decoder, multi-scale feature + GRU
    def __init__(self, g_dims, mid_dim, hidden_dim):
        super().__init__()
        self.hidden_dim = hidden_dim

        self.g16_conv = GConv2D(g_dims[0], mid_dim, kernel_size=1)
        self.g8_conv = GConv2D(g_dims[1], mid_dim, kernel_size=1)
        self.g4_conv = GConv2D(g_dims[2], mid_dim, kernel_size=1)

        self.transform = GConv2D(mid_dim+hidden_dim, hidden_dim*3, kernel_size=3, padding=1)

        nn.init.xavier_normal_(self.transform.weight)

    def forward(self, g16, g8, g4, h):
        g = [g16, g8, g4]
        g = self.g16_conv(g[0]) + self.g8_conv(downsample_groups(g[1], ratio=1/2)) + \
            self.g4_conv(downsample_groups(g[2], ratio=1/4))

        g = torch.cat([g, h], 2)

        values = self.transform(g)
        forget_gate = torch.sigmoid(values[:,:,:self.hidden_dim])
        update_gate = torch.sigmoid(values[:,:,self.hidden_dim:self.hidden_dim*2])
        new_value = torch.tanh(values[:,:,self.hidden_dim*2:])
        new_h = forget_gate*h*(1-update_gate) + update_gate*new_value

        return new_h


def make_model():
    return HiddenUpdater([32, 16, 8], 16, 8).eval()


def _inputs(b, o, h, w):
    return (torch.randn(b, o, 32, h, w), torch.randn(b, o, 16, 2 * h, 2 * w),
            torch.randn(b, o, 8, 4 * h, 4 * w), torch.randn(b, o, 8, h, w))


def example_inputs():
    return _inputs(1, 2, 6, 8)


def other_inputs():
    return [_inputs(2, 3, 5, 7), _inputs(1, 1, 9, 4)]


def probe_inputs():
    return other_inputs()
