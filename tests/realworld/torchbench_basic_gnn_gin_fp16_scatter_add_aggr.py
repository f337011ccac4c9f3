"""TorchBench's basic_gnn_gin (PyG `GIN(64, 64, num_layers=3)`: GINConv layers whose sum aggregation is
`new_zeros(...).scatter_add_(0, index, src)`) run in float16: the exported model fails in onnxruntime
with "MLFloat16 data type is not supported with ScatterElements opset 18 when reduction is ..." (the
report lists basic_gnn_edgecnn, basic_gnn_sage and basic_gnn_gin as affected).

Source: https://github.com/microsoft/onnxruntime/issues/18864
"""
import torch
from torch import nn

CLASS = "dtype-gap"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "operators-16"


def scatter(src, index, dim, dim_size):
    # torch_geometric.utils.scatter(..., reduce="sum")
    size = list(src.size())
    size[dim] = dim_size
    index = index.view(-1, 1).expand_as(src)
    return src.new_zeros(size).scatter_add_(dim, index, src)


class GINConv(nn.Module):
    def __init__(self, nn_module, eps=0.0):
        super().__init__()
        self.nn = nn_module
        self.eps = eps

    def forward(self, x, edge_index):
        x_j = x.index_select(0, edge_index[0])              # message: x_j
        out = scatter(x_j, edge_index[1], 0, x.size(0))     # aggr="add"
        out = out + (1 + self.eps) * x
        return self.nn(out)


class GIN(nn.Module):
    def __init__(self, in_channels=64, hidden_channels=64, num_layers=3):
        super().__init__()
        self.convs = nn.ModuleList()
        for i in range(num_layers):
            c_in = in_channels if i == 0 else hidden_channels
            mlp = nn.Sequential(nn.Linear(c_in, hidden_channels), nn.BatchNorm1d(hidden_channels), nn.ReLU(),
                                nn.Linear(hidden_channels, hidden_channels))
            self.convs.append(GINConv(mlp))
        self.act = nn.ReLU()

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = self.act(x)
        return x


def make_model():
    return GIN(64, 64, num_layers=3).eval().half()


def _graph(num_nodes, num_edges):
    x = torch.randn(num_nodes, 64, dtype=torch.float16)
    edge_index = torch.randint(num_nodes, (2, num_edges))
    return (x, edge_index)


def example_inputs():
    return _graph(100, 400)


def other_inputs():
    return [_graph(57, 300), _graph(131, 911)]


def probe_inputs():
    return other_inputs()
