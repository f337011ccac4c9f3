"""A float64 internal-coordinate featurizer (bond angles with `torch.acos`, dihedrals with `torch.atan2`) feeding a
small float64 MLP. Both exporters emit ONNX Acos / Atan nodes on tensor(double), and onnxruntime's CPU provider only
registers those trigonometry kernels for float32 ("sin, cos and tanh supported float32 and float64 while the other
trigonometry functions only supported float32"), so the session fails with NOT_IMPLEMENTED for Acos(7) / Atan(7).

Source: https://github.com/microsoft/onnxruntime/pull/25727
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"pos": {0: "quads"}}
BLIND = "operators-54"


def bond_angle(a, b, c):
    v1 = a - b
    v2 = c - b
    cos = (v1 * v2).sum(-1) / (v1.norm(dim=-1) * v2.norm(dim=-1))
    return torch.acos(cos.clamp(-1.0, 1.0))


def dihedral(p0, p1, p2, p3):
    b0 = p0 - p1
    b1 = p2 - p1
    b2 = p3 - p2
    b1 = b1 / b1.norm(dim=-1, keepdim=True)
    v = b0 - (b0 * b1).sum(-1, keepdim=True) * b1
    w = b2 - (b2 * b1).sum(-1, keepdim=True) * b1
    x = (v * w).sum(-1)
    y = (torch.cross(b1, v, dim=-1) * w).sum(-1)
    return torch.atan2(y, x)


class InternalCoordEnergy(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(5, hidden), nn.Tanh(), nn.Linear(hidden, 1)).double()

    def forward(self, pos):
        # pos: (n_quads, 4, 3) float64 positions of four bonded atoms
        p0, p1, p2, p3 = pos.unbind(1)
        theta1 = bond_angle(p0, p1, p2)
        theta2 = bond_angle(p1, p2, p3)
        phi = dihedral(p0, p1, p2, p3)
        feats = torch.stack([theta1, theta2, torch.cos(phi), torch.sin(phi), phi], dim=-1)
        return self.mlp(feats).squeeze(-1)


def make_model():
    return InternalCoordEnergy().eval()


def _pos(n):
    return torch.randn(n, 4, 3, dtype=torch.float64)


def example_inputs():
    return (_pos(6),)


def other_inputs():
    return [(_pos(11),), (_pos(3),)]


def probe_inputs():
    return other_inputs()
