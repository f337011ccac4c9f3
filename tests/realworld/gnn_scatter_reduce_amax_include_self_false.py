"""Graph layer with max message aggregation written the torch_geometric way:
`out = x.new_zeros(...).scatter_reduce_(0, index, msg, reduce="amax", include_self=False)`.
The report: scatter_reduce now exports, but torch.onnx.export raises
`OnnxExporterError: ONNX does not support include_self=False for scatter_reduce`.

Source: https://github.com/pytorch/pytorch/issues/106373
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "operators-7"


def scatter_max(src, index, dim, dim_size):
    size = list(src.size())
    size[dim] = dim_size
    index = index.view(-1, 1).expand_as(src)
    return src.new_zeros(size).scatter_reduce_(dim, index, src, reduce="amax", include_self=False)


class MaxConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin_msg = nn.Linear(2 * in_channels, out_channels)
        self.lin_root = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index):
        src, dst = edge_index[0], edge_index[1]
        x_i = x.index_select(0, dst)
        x_j = x.index_select(0, src)
        msg = self.lin_msg(torch.cat([x_i, x_j - x_i], dim=-1)).relu()
        aggr = scatter_max(msg, dst, dim=0, dim_size=x.size(0))
        return aggr + self.lin_root(x)


class GNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = MaxConv(8, 16)
        self.conv2 = MaxConv(16, 16)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


def make_model():
    return GNN().eval()


def _graph(n, e):
    idx = torch.arange(e) % n
    return torch.randn(n, 8), torch.stack([torch.randint(0, n, (e,)), idx])


def example_inputs():
    return _graph(10, 30)


def other_inputs():
    return [_graph(17, 45), _graph(6, 11)]


def probe_inputs():
    return other_inputs()
