"""Chemprop v2 bond message passing and MeanAggregation: the message allocates
`torch.zeros(len(bmg.V), H.shape[1])` and the readout takes the number of molecules from the values,
`dim_size = batch.max().int() + 1`; ONNX export "needs workarounds ... for correct/dynamic behavior" when
the inference batch differs from the export batch.

Source: https://github.com/chemprop/chemprop/issues/1335
"""
import torch
from torch import nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"V": {0: "atoms"}, "E": {0: "bonds"}, "edge_index": {1: "bonds"},
           "rev_edge_index": {0: "bonds"}, "batch": {0: "atoms"}}
BLIND = "domains-1"


class BondMessagePassingMean(nn.Module):
    def __init__(self, d_v=8, d_e=4, d_h=16, depth=2):
        super().__init__()
        self.W_i = nn.Linear(d_v + d_e, d_h, bias=False)
        self.W_h = nn.Linear(d_h, d_h, bias=False)
        self.W_o = nn.Linear(d_v + d_h, d_h)
        self.depth = depth

    def message(self, H, V, edge_index, rev_edge_index):
        index_torch = edge_index[1].unsqueeze(1).repeat(1, H.shape[1])
        M_all = torch.zeros(len(V), H.shape[1], dtype=H.dtype, device=H.device).scatter_reduce_(
            0, index_torch, H, reduce="sum", include_self=False
        )[edge_index[0]]
        M_rev = H[rev_edge_index]
        return M_all - M_rev

    def aggregate(self, H, batch):
        index_torch = batch.unsqueeze(1).repeat(1, H.shape[1])
        dim_size = batch.max().int() + 1
        return torch.zeros(dim_size, H.shape[1], dtype=H.dtype, device=H.device).scatter_reduce_(
            0, index_torch, H, reduce="mean", include_self=False
        )

    def forward(self, V, E, edge_index, rev_edge_index, batch):
        H_0 = self.W_i(torch.cat([V[edge_index[0]], E], dim=1))
        H = torch.relu(H_0)
        for _ in range(1, self.depth):
            M = self.message(H, V, edge_index, rev_edge_index)
            H = torch.relu(H_0 + self.W_h(M))
        index_torch = edge_index[1].unsqueeze(1).repeat(1, H.shape[1])
        M = torch.zeros(len(V), H.shape[1], dtype=H.dtype, device=H.device).scatter_reduce_(
            0, index_torch, H, reduce="sum", include_self=False
        )
        H_v = torch.relu(self.W_o(torch.cat((V, M), dim=1)))
        return self.aggregate(H_v, batch)


def _mols(sizes):
    # chains: atom i -- atom i+1 inside each molecule, both directions
    src, dst, batch, off = [], [], [], 0
    for m, n in enumerate(sizes):
        for i in range(n - 1):
            src += [off + i, off + i + 1]
            dst += [off + i + 1, off + i]
        batch += [m] * n
        off += n
    edge_index = torch.tensor([src, dst])
    n_e = edge_index.shape[1]
    rev = torch.arange(n_e).view(-1, 2).flip(1).reshape(-1)
    return (torch.randn(off, 8), torch.randn(n_e, 4), edge_index, rev, torch.tensor(batch))


def make_model():
    return BondMessagePassingMean()


def example_inputs():
    return _mols([3, 4])


def other_inputs():
    return [_mols([2, 5, 3, 4]), _mols([6])]


def probe_inputs():
    return other_inputs()
