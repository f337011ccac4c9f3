"""torch-dftd's DFT-D3 energy over a batch of molecular graphs: per-edge dispersion energies are pooled into
per-graph energies with `scatter_add_` over the edge batch index, and the number of graphs is taken as
`n_graphs = int(batch[-1]) + 1`; the report says that when traced and exported to ONNX the model always assumes
the fixed number of graphs seen at export time.

Source: https://github.com/pfnet-research/torch-dftd/pull/18
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "scalars"
DYNAMIC = {"pos": {0: "atoms"}, "edge_index": {1: "edges"}, "batch": {0: "atoms"}}
BLIND = "domains-4"


class DFTD3Energy(nn.Module):
    def __init__(self, n_species=10, s6=1.0, s8=0.7875, a1=0.4289, a2=4.4407):
        super().__init__()
        self.c6ab = nn.Parameter(torch.rand(n_species, n_species) + 0.5)
        self.species = nn.Embedding(n_species, 1)
        self.s6, self.s8, self.a1, self.a2 = s6, s8, a1, a2

    def edisp(self, pos, edge_index, batch):
        idx_i, idx_j = edge_index[0], edge_index[1]
        r = torch.norm(pos[idx_i] - pos[idx_j], dim=-1)
        Z = torch.arange(pos.shape[0], device=pos.device) % self.c6ab.shape[0]
        c6 = self.c6ab[Z[idx_i], Z[idx_j]]
        c8 = 3 * c6 * (1.0 + self.species(Z[idx_i]).squeeze(-1).abs())
        r2 = r ** 2
        r6 = r2 ** 3
        r8 = r6 * r2
        tmp = self.a1 * torch.sqrt(c8 / c6) + self.a2
        tmp2 = tmp ** 2
        tmp6 = tmp2 ** 3
        tmp8 = tmp6 * tmp2
        e6 = 1 / (r6 + tmp6)
        e8 = 1 / (r8 + tmp8)
        e6 = -0.5 * self.s6 * c6 * e6  # (n_edges,)
        e8 = -0.5 * self.s8 * c8 * e8  # (n_edges,)
        e68 = e6 + e8

        batch_edge = batch[idx_i]
        # (n_graphs,)
        if batch.size()[0] == 0:
            n_graphs = 1
        else:
            n_graphs = int(batch[-1]) + 1
        g = e68.new_zeros((n_graphs,), dtype=torch.float64)
        g.scatter_add_(0, batch_edge, e68.to(torch.float64))
        return g

    def forward(self, pos, edge_index, batch):
        return self.edisp(pos, edge_index, batch)


def _graphs(sizes, edges_per_graph):
    pos, edges, batch, offset = [], [], [], 0
    for gi, n in enumerate(sizes):
        pos.append(torch.randn(n, 3) * 2.0)
        src = torch.randint(0, n, (edges_per_graph,))
        dst = (src + torch.randint(1, n, (edges_per_graph,))) % n
        edges.append(torch.stack([src, dst]) + offset)
        batch.append(torch.full((n,), gi, dtype=torch.long))
        offset += n
    return torch.cat(pos), torch.cat(edges, dim=1), torch.cat(batch)


def make_model():
    return DFTD3Energy()


def example_inputs():
    return _graphs([4, 5], 6)


def other_inputs():
    return [_graphs([3, 6, 4], 5), _graphs([7], 9), _graphs([5, 3, 4, 6], 4)]


def probe_inputs():
    return other_inputs()
