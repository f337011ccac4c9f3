"""PyG's `to_dense_batch` (graph transformer read-out over a batch of graphs): even when `batch_size` and
`max_num_nodes` are given, it still computes `num_nodes.max() > max_num_nodes` on the per-graph node counts
(scattered from the batch index) to decide whether to filter nodes with a boolean mask; the report says this
data-dependent branch and the boolean masking force a device sync and a graph break under compilation.

Source: https://github.com/pyg-team/pytorch_geometric/pull/10660
"""
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

CLASS = "data-dependent-exit"
FAMILY = "control_flow"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}, "batch": {0: "num_nodes"}}
BLIND = "domains-4"


def scatter(src, index, dim=0, dim_size=None, reduce='sum'):
    size = list(src.size())
    size[dim] = dim_size
    return src.new_zeros(size).scatter_add_(dim, index, src)


def cumsum(x: Tensor, dim: int = 0) -> Tensor:
    size = x.size()[:dim] + (x.size(dim) + 1, ) + x.size()[dim + 1:]
    out = x.new_empty(size)
    out.narrow(dim, 0, 1).zero_()
    torch.cumsum(x, dim=dim, out=out.narrow(dim, 1, x.size(dim)))
    return out


def is_experimental_mode_enabled(options) -> bool:
    return False


def to_dense_batch(
    x: Tensor,
    batch: Optional[Tensor] = None,
    fill_value: float = 0.0,
    max_num_nodes: Optional[int] = None,
    batch_size: Optional[int] = None,
) -> Tuple[Tensor, Tensor]:
    if batch is None and max_num_nodes is None:
        mask = torch.ones(1, x.size(0), dtype=torch.bool, device=x.device)
        return x.unsqueeze(0), mask

    if batch is None:
        batch = x.new_zeros(x.size(0), dtype=torch.long)

    if batch_size is None:
        batch_size = int(batch.max()) + 1

    num_nodes = scatter(batch.new_ones(x.size(0)), batch, dim=0,
                        dim_size=batch_size, reduce='sum')
    cum_nodes = cumsum(num_nodes)

    filter_nodes = False
    dynamic_shapes_disabled = is_experimental_mode_enabled(
        'disable_dynamic_shapes')

    if max_num_nodes is None:
        max_num_nodes = int(num_nodes.max())
    elif not dynamic_shapes_disabled and num_nodes.max() > max_num_nodes:
        filter_nodes = True

    tmp = torch.arange(batch.size(0), device=x.device) - cum_nodes[batch]
    idx = tmp + (batch * max_num_nodes)
    if filter_nodes:
        mask = tmp < max_num_nodes
        x, idx = x[mask], idx[mask]

    size = [batch_size * max_num_nodes] + list(x.size())[1:]
    out = torch.as_tensor(fill_value, device=x.device, dtype=x.dtype)
    out = out.repeat(size)
    out[idx] = x
    out = out.view([batch_size, max_num_nodes] + list(x.size())[1:])

    mask = torch.zeros(batch_size * max_num_nodes, dtype=torch.bool,
                       device=x.device)
    mask[idx] = 1
    mask = mask.view(batch_size, max_num_nodes)

    return out, mask


class GraphTransformer(nn.Module):
    def __init__(self, in_dim=8, hidden=16, batch_size=2, max_num_nodes=8):
        super().__init__()
        self.lin = nn.Linear(in_dim, hidden)
        self.lin_msg = nn.Linear(hidden, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, 4, 32, dropout=0.0, batch_first=True)
        self.batch_size = batch_size
        self.max_num_nodes = max_num_nodes

    def forward(self, x, edge_index, batch):
        h = self.lin(x).relu()
        msg = self.lin_msg(h)[edge_index[0]]
        h = h + torch.zeros_like(h).index_add_(0, edge_index[1], msg)
        dense, mask = to_dense_batch(h, batch, max_num_nodes=self.max_num_nodes,
                                     batch_size=self.batch_size)
        dense = self.encoder(dense, src_key_padding_mask=~mask)
        dense = dense * mask.unsqueeze(-1)
        return dense.sum(dim=1) / mask.sum(dim=1, keepdim=True)


def _graphs(sizes, edges_per_graph):
    xs, edges, batch, offset = [], [], [], 0
    for gi, n in enumerate(sizes):
        xs.append(torch.randn(n, 8))
        src = torch.randint(0, n, (edges_per_graph,))
        dst = torch.randint(0, n, (edges_per_graph,))
        edges.append(torch.stack([src, dst]) + offset)
        batch.append(torch.full((n,), gi, dtype=torch.long))
        offset += n
    return torch.cat(xs), torch.cat(edges, dim=1), torch.cat(batch)


def make_model():
    return GraphTransformer().eval()


def example_inputs():
    return _graphs([5, 7], 9)


def other_inputs():
    return [_graphs([10, 4], 12), _graphs([3, 6], 5)]


def probe_inputs():
    return other_inputs()
