"""PyG MessagePassing layer that calls `add_self_loops(edge_index)` without `num_nodes`: PyG's
`maybe_num_nodes` takes the node count from the values, `int(edge_index.max()) + 1`, so the traced
model keeps the example graph's node count as a constant and "returns wrong outputs on the bigger graph
and crashes on the smaller graph" (self loops missing / out of range).

Source: https://github.com/pyg-team/pytorch_geometric/issues/7226
"""
import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "nodes"}, "edge_index": {1: "edges"}}
BLIND = "domains-9"


# --- torch_geometric.utils (v2.3), the lines the layer uses ---
def maybe_num_nodes(edge_index, num_nodes=None):
    if num_nodes is not None:
        return num_nodes
    elif isinstance(edge_index, Tensor):
        return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0
    else:
        return max(edge_index.size(0), edge_index.size(1))


def add_self_loops(edge_index, edge_attr=None, fill_value=None, num_nodes=None):
    N = maybe_num_nodes(edge_index, num_nodes)
    loop_index = torch.arange(0, N, dtype=torch.long, device=edge_index.device)
    loop_index = loop_index.unsqueeze(0).repeat(2, 1)
    edge_index = torch.cat([edge_index, loop_index], dim=1)
    return edge_index, edge_attr


class MessagePassing(nn.Module):
    """Minimal torch_geometric.nn.MessagePassing: gather x_j, message, 'add' aggregation at i."""

    def __init__(self, aggr='add'):
        super().__init__()
        self.aggr = aggr

    def message(self, x_j):
        return x_j

    def propagate(self, edge_index, x):
        x_j = x.index_select(0, edge_index[0])
        out = self.message(x_j)
        index = edge_index[1]
        dim_size = x.size(0)
        return torch.zeros(dim_size, out.size(1), dtype=out.dtype).index_add_(0, index, out)


class MyConv(MessagePassing):
    def __init__(self, use_self_loops: bool, aggr: str = 'add'):
        super().__init__(aggr=aggr)
        self.use_self_loops = use_self_loops

    def forward(self, x: Tensor, edge_index: torch.Tensor) -> Tensor:
        if self.use_self_loops:
            edge_index, _ = add_self_loops(edge_index)
        return self.propagate(edge_index, x=x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 16)
        self.conv = MyConv(use_self_loops=True)

    def forward(self, x, edge_index):
        return self.conv(self.lin(x), edge_index)


def _ring(n):
    src = torch.arange(n)
    dst = (src + 1) % n
    return (torch.randn(n, 8), torch.stack([torch.cat([src, dst]), torch.cat([dst, src])]))


def make_model():
    return Net()


def example_inputs():
    return _ring(4)


def other_inputs():
    return [_ring(7), _ring(3)]


def probe_inputs():
    return other_inputs()
