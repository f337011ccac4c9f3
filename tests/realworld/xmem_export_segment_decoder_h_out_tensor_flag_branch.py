"""XMem (Track-Anything tracker) decoder wrapped for ONNX export with the runtime flag `h_out` passed as
a tensor input: the first version branched in Python, `if h_out[0]==1 and self.is_hidden_updata:`
(hidden-state update only when requested), which the exporter cannot keep as a runtime choice; the
exporter repository left that line commented out and rewrote it with torch.where.

Source: https://github.com/5PB-3-4/XMem_Export/blob/11114e7b8d3faf9a20bfe4dbe8e5089c5310863e/export_model.py
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {
    "f16": {2: "h16", 3: "w16"},
    "f8": {2: "h8", 3: "w8"},
    "f4": {2: "h4", 3: "w4"},
    "hidden_state": {1: "num_objects", 3: "h16", 4: "w16"},
    "memory_readout": {1: "num_objects", 3: "h16", 4: "w16"},
}
BLIND = "domains-82"


def interpolate_groups(g, ratio, mode, align_corners):
    batch_size, num_objects = g.shape[:2]
    g = F.interpolate(g.flatten(start_dim=0, end_dim=1),
                scale_factor=ratio, mode=mode, align_corners=align_corners)
    g = g.view(batch_size, num_objects, *g.shape[1:])
    return g

def upsample_groups(g, ratio=2, mode='bilinear', align_corners=False):
    return interpolate_groups(g, ratio, mode, align_corners)

def downsample_groups(g, ratio=1/2, mode='bilinear', align_corners=None):
    return interpolate_groups(g, ratio, mode, align_corners)


class GConv2D(nn.Conv2d):
    def forward(self, g):
        batch_size, num_objects = g.shape[:2]
        g = super().forward(g.flatten(start_dim=0, end_dim=1))
        return g.view(batch_size, num_objects, *g.shape[1:])


class GroupResBlock(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.downsample = None if in_dim == out_dim else GConv2D(in_dim, out_dim, kernel_size=3, padding=1)
        self.conv1 = GConv2D(in_dim, out_dim, kernel_size=3, padding=1)
        self.conv2 = GConv2D(out_dim, out_dim, kernel_size=3, padding=1)

    def forward(self, g):
        out_g = self.conv1(F.relu(g))
        out_g = self.conv2(F.relu(out_g))
        if self.downsample is not None:
            g = self.downsample(g)
        return out_g + g


class MainToGroupDistributor(nn.Module):
    def __init__(self, method='cat'):
        super().__init__()
        self.method = method

    def forward(self, x, g):
        num_objects = g.shape[1]
        if self.method == 'cat':
            g = torch.cat([x.unsqueeze(1).expand(-1,num_objects,-1,-1,-1), g], 2)
        else:
            g = x.unsqueeze(1).expand(-1,num_objects,-1,-1,-1) + g
        return g


class FeatureFusionBlock(nn.Module):
    def __init__(self, x_in_dim, g_in_dim, g_mid_dim, g_out_dim):
        super().__init__()
        self.distributor = MainToGroupDistributor()
        self.block1 = GroupResBlock(x_in_dim+g_in_dim, g_mid_dim)
        self.block2 = GroupResBlock(g_mid_dim, g_out_dim)

    def forward(self, x, g):
        g = self.distributor(x, g)
        g = self.block1(g)
        g = self.block2(g)
        return g


class UpsampleBlock(nn.Module):
    def __init__(self, skip_dim, g_up_dim, g_out_dim, scale_factor=2):
        super().__init__()
        self.skip_conv = nn.Conv2d(skip_dim, g_up_dim, kernel_size=3, padding=1)
        self.distributor = MainToGroupDistributor(method='add')
        self.out_conv = GroupResBlock(g_up_dim, g_out_dim)
        self.scale_factor = scale_factor

    def forward(self, skip_f, up_g):
        skip_f = self.skip_conv(skip_f)
        g = upsample_groups(up_g, ratio=self.scale_factor)
        g = self.distributor(skip_f, g)
        g = self.out_conv(g)
        return g


class HiddenUpdater(nn.Module):
    def __init__(self, g_dims, mid_dim, hidden_dim):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.g16_conv = GConv2D(g_dims[0], mid_dim, kernel_size=1)
        self.g8_conv = GConv2D(g_dims[1], mid_dim, kernel_size=1)
        self.g4_conv = GConv2D(g_dims[2], mid_dim, kernel_size=1)
        self.transform = GConv2D(mid_dim+hidden_dim, hidden_dim*3, kernel_size=3, padding=1)

    def forward(self, g, h):
        g = self.g16_conv(g[0]) + self.g8_conv(downsample_groups(g[1], ratio=1/2)) + \
            self.g4_conv(downsample_groups(g[2], ratio=1/4))
        g = torch.cat([g, h], 2)
        values = self.transform(g)
        forget_gate = torch.sigmoid(values[:,:,:self.hidden_dim])
        update_gate = torch.sigmoid(values[:,:,self.hidden_dim:self.hidden_dim*2])
        new_value = torch.tanh(values[:,:,self.hidden_dim*2:])
        new_h = forget_gate*h*(1-update_gate) + update_gate*new_value
        return new_h


class Decoder(nn.Module):
    # XMem's Decoder with channels scaled down (1024/512/256 -> 64/32/16)
    def __init__(self, val_dim, hidden_dim):
        super().__init__()
        self.fuser = FeatureFusionBlock(64, val_dim+hidden_dim, 32, 32)
        self.hidden_update = HiddenUpdater([32, 16, 16+1], 16, hidden_dim) if hidden_dim > 0 else None
        self.up_16_8 = UpsampleBlock(32, 32, 16)
        self.up_8_4 = UpsampleBlock(16, 16, 16)
        self.pred = nn.Conv2d(16, 1, kernel_size=3, padding=1, stride=1)


class Segment(nn.Module):
    def __init__(self, decoder: Decoder, val_dim):
        super().__init__()
        self.dec = decoder
        self.fuser = FeatureFusionBlock(64, val_dim, 32, 32)
        self.is_hidden_updata = decoder.hidden_update is not None

    def forward(self, f16, f8, f4, hidden_state, memory_readout, h_out: torch.Tensor):
        batch_size, num_objects = memory_readout.shape[:2]

        if self.is_hidden_updata:
            g16 = self.dec.fuser(f16, torch.cat([memory_readout, hidden_state], 2))
        else:
            g16 = self.fuser(f16, memory_readout)

        g8 = self.dec.up_16_8(f8, g16)
        g4 = self.dec.up_8_4(f4, g8)
        logits = self.dec.pred(F.relu(g4.flatten(start_dim=0, end_dim=1)))

        if h_out[0]==1 and self.is_hidden_updata:
            g4 = torch.cat([g4, logits.view(batch_size, num_objects, 1, *logits.shape[-2:])], 2)
            hidden_state = self.dec.hidden_update([g16, g8, g4], hidden_state)

        logits = F.interpolate(logits, scale_factor=4, mode='bilinear', align_corners=False)
        logits = logits.view(batch_size, num_objects, *logits.shape[-2:])

        prob = torch.sigmoid(logits)
        return hidden_state, logits, prob


def make_model():
    return Segment(Decoder(val_dim=32, hidden_dim=8), val_dim=32).eval()


def _inputs(objects, h, w, h_out):
    return (
        torch.randn(1, 64, h, w),
        torch.randn(1, 32, 2 * h, 2 * w),
        torch.randn(1, 16, 4 * h, 4 * w),
        torch.randn(1, objects, 8, h, w),
        torch.randn(1, objects, 32, h, w),
        torch.tensor([h_out], dtype=torch.float32),
    )


def example_inputs():
    return _inputs(2, 6, 8, 1.0)  # deep update frame: hidden state is refreshed


def other_inputs():
    # the tracker asks for h_out only on some frames; otherwise the hidden state passes through
    return [_inputs(3, 5, 7, 0.0), _inputs(1, 8, 5, 1.0), _inputs(2, 4, 6, 0.0)]


def probe_inputs():
    return other_inputs()
