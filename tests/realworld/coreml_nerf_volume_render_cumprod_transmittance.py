"""A NeRF-style volume renderer composites samples along each ray with torch.cumprod of (1 - alpha)
to get the transmittance; Core ML's torch.export path had no translation for cumprod until a PR
added it (with nan_to_num, searchsorted and one_hot), so such a model did not convert.

Source: https://github.com/apple/coremltools/pull/2403
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"rays": {0: "rays", 1: "samples"}}
BLIND = "operators-21"


class TinyRadianceField(nn.Module):
    def __init__(self, in_dim=3, hidden=64):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, rays):
        # rays: (R, S, 4) = sample positions xyz + distance to the next sample
        pts, deltas = rays[..., :3], rays[..., 3]
        raw = self.mlp(pts)
        rgb = torch.sigmoid(raw[..., :3])
        sigma = F.relu(raw[..., 3])
        alpha = 1.0 - torch.exp(-sigma * deltas)
        ones = torch.ones_like(alpha[:, :1])
        transmittance = torch.cumprod(torch.cat([ones, 1.0 - alpha + 1e-10], dim=-1), dim=-1)[:, :-1]
        weights = alpha * transmittance
        rgb_map = torch.sum(weights.unsqueeze(-1) * rgb, dim=-2)
        acc_map = torch.sum(weights, dim=-1)
        return rgb_map, acc_map


def make_model():
    return TinyRadianceField().eval()


def _rays(r, s):
    pts = torch.randn(r, s, 3)
    deltas = torch.rand(r, s, 1) * 0.1
    return torch.cat([pts, deltas], dim=-1)


def example_inputs():
    return (_rays(64, 32),)


def other_inputs():
    return [(_rays(100, 48),), (_rays(17, 9),)]


def probe_inputs():
    return other_inputs()
