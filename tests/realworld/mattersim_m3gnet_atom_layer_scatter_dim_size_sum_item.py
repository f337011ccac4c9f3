"""MatterSim (M3GNet interatomic potential): `AtomLayer` sums edge messages back onto atoms with torch_runstats'
`scatter(..., dim_size=torch.sum(num_atoms).item())`, so the output size is read from a tensor's values; the PR
porting the torch.compile/AOTI path replaced these `.item()` calls (and torch_runstats) with a native scatter_sum
sized without a host sync. GatedMLP/scatter are copied from mattersim and torch_runstats, trimmed.

Source: https://github.com/microsoft/mattersim/pull/154
"""
import torch
import torch.nn as nn

CLASS = "item-assigned"
FAMILY = "tensor_data"
DYNAMIC = {
    "atom_attr": {0: "atoms"},
    "edge_attr": {0: "edges"},
    "edge_index": {1: "edges"},
    "edge_attr_prime": {0: "edges"},
    "num_atoms": {0: "structures"},
}
BLIND = "domains-49"


def _broadcast(src: torch.Tensor, other: torch.Tensor, dim: int):
    if dim < 0:
        dim = other.dim() + dim
    if src.dim() == 1:
        for _ in range(0, dim):
            src = src.unsqueeze(0)
    for _ in range(src.dim(), other.dim()):
        src = src.unsqueeze(-1)
    src = src.expand_as(other)
    return src


def scatter(src, index, dim: int = -1, out=None, dim_size=None, reduce: str = "sum"):
    assert reduce == "sum"
    index = _broadcast(index, src, dim)
    if out is None:
        size = list(src.size())
        if dim_size is not None:
            size[dim] = dim_size
        elif index.numel() == 0:
            size[dim] = 0
        else:
            size[dim] = int(index.max()) + 1
        out = torch.zeros(size, dtype=src.dtype, device=src.device)
        return out.scatter_add_(dim, index, src)
    else:
        return out.scatter_add_(dim, index, src)


class GatedMLP(nn.Module):
    def __init__(self, in_dim, out_dims):
        super().__init__()
        g, sigma, d = [], [], in_dim
        for i, o in enumerate(out_dims):
            g += [nn.Linear(d, o), nn.SiLU()]
            sigma += [nn.Linear(d, o), nn.SiLU() if i < len(out_dims) - 1 else nn.Sigmoid()]
            d = o
        self.g = nn.Sequential(*g)
        self.sigma = nn.Sequential(*sigma)

    def forward(self, x):
        return self.g(x) * self.sigma(x)


class AtomLayer(nn.Module):
    """v_i'=v_i+sum(phi(v+i,v_j,e_ij',u)W*e_ij^0)"""

    def __init__(self, atom_attr_dim=16, edge_attr_dim=8, spherecal_dim=8):
        super().__init__()
        self.gated_mlp = GatedMLP(in_dim=2 * atom_attr_dim + spherecal_dim, out_dims=[32, atom_attr_dim])
        self.edge_layer = nn.Linear(edge_attr_dim, 1)

    def forward(self, atom_attr, edge_attr, edge_index, edge_attr_prime, num_atoms):
        feat = torch.concat(
            [atom_attr[edge_index[0]], atom_attr[edge_index[1]], edge_attr_prime],
            dim=1,
        )
        atom_attr_prime = self.gated_mlp(feat) * self.edge_layer(edge_attr)
        atom_attr_prime = scatter(
            atom_attr_prime,
            edge_index[1],
            dim=0,
            dim_size=torch.sum(num_atoms).item(),  # noqa: E501
        )
        return atom_attr_prime + atom_attr


def make_model():
    return AtomLayer()


def _inputs(num_atoms, n_edges):
    n = sum(num_atoms)
    return (
        torch.randn(n, 16),
        torch.randn(n_edges, 8),
        torch.randint(0, n, (2, n_edges)),
        torch.randn(n_edges, 8),
        torch.tensor(num_atoms),
    )


def example_inputs():
    return _inputs([5, 7], 40)


def other_inputs():
    return [_inputs([4, 9, 6], 71), _inputs([11], 23)]


def probe_inputs():
    return other_inputs()
