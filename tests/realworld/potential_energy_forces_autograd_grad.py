"""Neural-network potential for a physics application: the network predicts an energy and the
inference output must also include its derivative (forces = -dE/dx), computed in forward with
`torch.autograd.grad`. The report asks how to export this gradient computation to ONNX; the
exporters cannot follow the autograd call.

Source: https://github.com/pytorch/pytorch/issues/110866
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"positions": {0: "atoms"}}
BLIND = "operators-15"


class EnergyForceModel(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(3, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
            nn.Linear(hidden, 1),
        )

    def forward(self, positions):
        positions = positions.detach().requires_grad_(True)
        with torch.enable_grad():
            energy = self.net(positions).sum()
            forces = -torch.autograd.grad(energy, positions, create_graph=False)[0]
        return energy.detach().reshape(1), forces.detach()


def make_model():
    return EnergyForceModel()


def example_inputs():
    return (torch.randn(8, 3),)


def other_inputs():
    return [(torch.randn(12, 3),), (torch.randn(5, 3),)]


def probe_inputs():
    return other_inputs()
