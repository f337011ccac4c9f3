"""ONX609 on a module-level memo dict: PWC-Net's and RIFE's `backwarp_tenGrid` keeps the sampling
grid per flow size (`str(tenFlow.size())`). The eager run before an export fills it for the
example's size: the legacy trace then keeps that grid as a constant (wrong for other sizes), and
torch.export leaves its own traced grid in the module's dict. Fixed (safely) by reading a fresh
dict under export."""
import torch
import torch.nn.functional as F
from torch import nn

backwarp_tenGrid = {}


def warp(tenInput, tenFlow):
    k = (str(tenFlow.device), str(tenFlow.size()))
    if k not in backwarp_tenGrid:
        tenHorizontal = torch.arange(tenFlow.shape[3]).float().view(1, 1, 1, -1).expand(tenFlow.shape[0], -1, tenFlow.shape[2], -1)
        tenVertical = torch.arange(tenFlow.shape[2]).float().view(1, 1, -1, 1).expand(tenFlow.shape[0], -1, -1, tenFlow.shape[3])
        backwarp_tenGrid[k] = torch.cat([tenHorizontal / tenFlow.shape[3], tenVertical / tenFlow.shape[2]], 1)
    g = (backwarp_tenGrid[k] + tenFlow).permute(0, 2, 3, 1)
    return F.grid_sample(input=tenInput, grid=g, mode="bilinear", padding_mode="border", align_corners=True)


class Warper(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = nn.Conv2d(3, 2, 3, padding=1)

    def forward(self, x):
        return warp(x, torch.tanh(self.flow(x)) * 0.1)


def make_model():
    torch.manual_seed(0)
    return Warper()


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 3, 8, 10),)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.randn(2, 3, 12, 6),), (torch.randn(1, 3, 5, 9),)]


DYNAMIC = {0: {0: "batch", 2: "height", 3: "width"}}
