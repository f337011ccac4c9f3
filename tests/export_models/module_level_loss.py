"""A loss computed in forward through a module-level `nn.L1Loss()` (Super-SloMo's TorchBench
wrapper, pytorch/pytorch#100913): the legacy exporter has no translation of aten::l1_loss, and
no static rule sees the call (a module instance held in a global). The run names the ATen
operator; its decomposition is substituted while exporting."""
import torch
from torch import nn

L1_lossFn = nn.L1Loss()


class Interp(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 3, 3, padding=1)

    def forward(self, a, b, target):
        out = torch.sigmoid(self.conv(torch.cat((a, b), dim=1)))
        return out, L1_lossFn(out, target) + L1_lossFn(a, target)


def make_model():
    torch.manual_seed(0)
    return Interp().eval()


def example_inputs():
    torch.manual_seed(0)
    return torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8), torch.rand(2, 3, 8, 8)


def probe_inputs():
    torch.manual_seed(1)
    return [(torch.rand(3, 3, 8, 8), torch.rand(3, 3, 8, 8), torch.rand(3, 3, 8, 8))]


DYNAMIC = {0: {0: "batch"}, 1: {0: "batch"}, 2: {0: "batch"}}
