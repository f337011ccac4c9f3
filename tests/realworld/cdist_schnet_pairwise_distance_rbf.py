"""SchNet-style interaction block for molecules/point clouds: the all-pairs distance matrix
`torch.cdist(pos, pos)` is expanded on Gaussian radial basis functions, passed through a filter
network and used for continuous-filter convolution over the atoms. The report: exporting `torch.cdist`
with `dynamic_axes` on the number of points crashes, because the exporter's cdist symbolic asserts
that the row sizes of both inputs are static.

Source: https://github.com/pytorch/pytorch/issues/169758
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"pos": {0: "batch", 1: "num_atoms"}, "h": {0: "batch", 1: "num_atoms"}}
BLIND = "operators-9"


class GaussianSmearing(nn.Module):
    def __init__(self, start=0.0, stop=5.0, num_gaussians=25):
        super().__init__()
        offset = torch.linspace(start, stop, num_gaussians)
        self.coeff = -0.5 / (offset[1] - offset[0]).item() ** 2
        self.register_buffer("offset", offset)

    def forward(self, dist):
        dist = dist.unsqueeze(-1) - self.offset
        return torch.exp(self.coeff * torch.pow(dist, 2))


class CFConvBlock(nn.Module):
    def __init__(self, hidden=32, num_gaussians=25, cutoff=5.0):
        super().__init__()
        self.cutoff = cutoff
        self.smearing = GaussianSmearing(0.0, cutoff, num_gaussians)
        self.filter_net = nn.Sequential(nn.Linear(num_gaussians, hidden), nn.Tanh(), nn.Linear(hidden, hidden))
        self.lin_in = nn.Linear(hidden, hidden)
        self.lin_out = nn.Linear(hidden, hidden)

    def forward(self, pos, h):
        # pos: (batch, num_atoms, 3), h: (batch, num_atoms, hidden)
        dist = torch.cdist(pos, pos)                                 # (B, N, N)
        C = 0.5 * (torch.cos(dist * torch.pi / self.cutoff) + 1.0) * (dist < self.cutoff)
        W = self.filter_net(self.smearing(dist)) * C.unsqueeze(-1)  # (B, N, N, hidden)
        x = self.lin_in(h)
        msg = (W * x.unsqueeze(1)).sum(dim=2)
        return h + self.lin_out(msg)


def make_model():
    return CFConvBlock().eval()


def example_inputs():
    return (torch.randn(2, 12, 3) * 2, torch.randn(2, 12, 32))


def other_inputs():
    return [(torch.randn(3, 20, 3) * 2, torch.randn(3, 20, 32)),
            (torch.randn(1, 7, 3) * 2, torch.randn(1, 7, 32))]


def probe_inputs():
    return other_inputs()
