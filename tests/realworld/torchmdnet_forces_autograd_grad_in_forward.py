"""TorchMD-Net style neural potential (molecular dynamics). With `derivative=True`, forward returns the energy
and the forces. The forces are `-dE/dpos`, taken with `torch.autograd.grad([y], [pos], grad_outputs=...)`
inside forward after `pos.requires_grad_(True)`. Inference runs under `torch.set_grad_enabled(derivative)`,
as `LNNP.predict_step` does. That does not export to ONNX. On the `onnx_support` branch,
the commit "option for ONNX export in TorchMD_Net class which uses jacobian instead of autograd.grad" moved
the energy into `energy_fn` and took `torch.autograd.functional.jacobian(energy_wrapper, pos)` in export mode.

Source: https://github.com/torchmd/torchmd-net/commit/4e4be3b92dd146e7e114afa99ca5e7ec3122270b
"""
import math
from typing import List, Optional

import torch
from torch import nn
from torch.autograd import grad

CLASS = "autograd-function"
FAMILY = "operators"
DYNAMIC = {"z": {0: "atoms"}, "pos": {0: "atoms"}}
BLIND = "domains-52"


class TinyRepresentation(nn.Module):
    """A small continuous-filter interaction over all atom pairs (stands in for TensorNet/ET)."""

    def __init__(self, hidden_channels=32, num_rbf=16, cutoff_upper=5.0, max_z=100):
        super().__init__()
        self.embedding = nn.Embedding(max_z, hidden_channels)
        self.register_buffer("means", torch.linspace(0.0, cutoff_upper, num_rbf))
        self.betas = (num_rbf / cutoff_upper) ** 2
        self.cutoff_upper = cutoff_upper
        self.filter = nn.Linear(num_rbf, hidden_channels)
        self.update = nn.Sequential(nn.Linear(hidden_channels, hidden_channels), nn.SiLU())

    def forward(self, z, pos, batch):
        x = self.embedding(z)
        edge_vec = pos[:, None, :] - pos[None, :, :]
        edge_weight = (edge_vec.pow(2).sum(-1) + 1e-9).sqrt()
        rbf = torch.exp(-self.betas * (edge_weight[..., None] - self.means) ** 2)
        cutoff = 0.5 * (torch.cos(edge_weight * math.pi / self.cutoff_upper) + 1.0)
        cutoff = cutoff * (edge_weight < self.cutoff_upper).to(pos.dtype)
        W = self.filter(rbf) * cutoff[..., None]
        x = x + self.update((W * x[None, :, :]).sum(1))
        return x, None, z, pos, batch


class TorchMD_Net(nn.Module):
    def __init__(self, derivative=True):
        super().__init__()
        self.representation_model = TinyRepresentation()
        self.output_network = nn.Sequential(nn.Linear(32, 16), nn.SiLU(), nn.Linear(16, 1))
        self.derivative = derivative

    def forward(self, z, pos, batch: Optional[torch.Tensor] = None):
        assert z.dim() == 1 and z.dtype == torch.long
        batch = torch.zeros_like(z) if batch is None else batch

        if self.derivative:
            pos.requires_grad_(True)
        # run the potentially wrapped representation model
        x, v, z, pos, batch = self.representation_model(z, pos, batch)
        # apply the output network
        x = self.output_network(x)

        # aggregate atoms (single system)
        y = x.sum(dim=0, keepdim=True)

        # compute gradients with respect to coordinates
        if self.derivative:
            grad_outputs: List[Optional[torch.Tensor]] = [torch.ones_like(y)]
            dy = grad(
                [y],
                [pos],
                grad_outputs=grad_outputs,
                create_graph=self.training,
                retain_graph=self.training,
            )[0]
            assert dy is not None, "Autograd returned None for the force prediction."
            return y, -dy
        return y, torch.empty(0)


class LNNP(nn.Module):
    """Inference entry point, as `LNNP.predict_step`: the model runs under `set_grad_enabled(derivative)`."""

    def __init__(self, derivative=True):
        super().__init__()
        self.derivative = derivative
        self.model = TorchMD_Net(derivative=derivative)

    def forward(self, z, pos):
        with torch.set_grad_enabled(self.derivative):
            return self.model(z, pos)


def make_model():
    return LNNP().eval()


def _mol(n):
    z = torch.randint(1, 10, (n,))
    pos = torch.randn(n, 3) * 1.5
    return (z, pos)


def example_inputs():
    return _mol(18)


def other_inputs():
    return [_mol(25), _mol(7)]


def probe_inputs():
    return other_inputs()
