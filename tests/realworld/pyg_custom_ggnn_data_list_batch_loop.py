"""A PyG GCN (2 layers, BatchNorm) wrapped so ONNX gets one flat tensor per sample: forward unpacks node
features and edge indices, builds `[Data(x=..., edge_index=...) for i in range(batch_size)]` and merges them
with `Batch.from_data_list`; the reporter finds the exported ONNX model's outputs differ from PyG's.

Source: https://github.com/pyg-team/pytorch_geometric/issues/9657
"""
import torch
from torch import nn

CLASS = "dynamic-loop"
FAMILY = "control_flow"
DYNAMIC = {"input_tensor": {0: "batch"}}
BLIND = "domains-5"


class Data:  # the bits of torch_geometric.data.Data used here
    def __init__(self, x, edge_index):
        self.x, self.edge_index = x, edge_index
        self.num_nodes = x.size(0)


class Batch:  # torch_geometric.data.Batch.from_data_list, reduced to x / edge_index / batch
    @staticmethod
    def from_data_list(data_list):
        xs, eis, batch, inc = [], [], [], 0
        for i, data in enumerate(data_list):
            xs.append(data.x)
            eis.append(data.edge_index + inc)
            batch.append(torch.full((data.num_nodes,), i, dtype=torch.long))
            inc = inc + data.num_nodes
        out = Data(torch.cat(xs, dim=0), torch.cat(eis, dim=1))
        out.batch = torch.cat(batch, dim=0)
        return out


class GCNConv(nn.Module):  # torch_geometric.nn.GCNConv: add_remaining_self_loops + gcn_norm + sum aggregation
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.randn(out_channels) * 0.1)

    def forward(self, x, edge_index):
        num_nodes = x.size(0)
        mask = edge_index[0] != edge_index[1]
        loop_index = torch.arange(0, num_nodes, dtype=torch.long).view(1, -1).repeat(2, 1)
        edge_index = torch.cat([edge_index[:, mask], loop_index], dim=1)
        edge_weight = torch.ones(edge_index.size(1), dtype=x.dtype)
        row, col = edge_index[0], edge_index[1]
        deg = torch.zeros(num_nodes, dtype=x.dtype).scatter_add_(0, col, edge_weight)
        deg_inv_sqrt = deg.pow_(-0.5)
        deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float('inf'), 0)
        edge_weight = deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]
        x = self.lin(x)
        msg = x[row] * edge_weight.view(-1, 1)
        out = torch.zeros_like(x).index_add_(0, col, msg)
        return out + self.bias


class GCN(nn.Module):  # torch_geometric.nn.models.GCN(num_layers=2, norm='BatchNorm', dropout=0.2)
    def __init__(self, in_channels, hidden_channels, out_channels, num_layers=2, dropout=0.2):
        super().__init__()
        self.convs = nn.ModuleList([GCNConv(in_channels, hidden_channels), GCNConv(hidden_channels, out_channels)])
        self.norms = nn.ModuleList([nn.BatchNorm1d(hidden_channels)])
        self.dropout = dropout

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = self.norms[i](x).relu()
                x = nn.functional.dropout(x, p=self.dropout, training=self.training)
        return x


class Custom_GGNN(nn.Module):
    def __init__(self):
        super(Custom_GGNN, self).__init__()
        self.ggnn = GCN(in_channels=10, hidden_channels=10, out_channels=10, num_layers=2, dropout=0.2)

    def forward(self, input_tensor):
        num_nodes = 5  # Number of nodes
        in_channels = 10  # Number of input features per node
        state_size = num_nodes * in_channels
        num_edge = 40  # Number of edges

        input_tensor = input_tensor.to(next(self.parameters()).device)
        input_tensor = input_tensor.view(-1, state_size + num_edge)
        ggnn_input_x = input_tensor[:, :state_size]
        ggnn_input_x = ggnn_input_x.reshape(input_tensor.shape[0], num_nodes, in_channels)  # (num_nodes, in_channels)

        edge_index_flat = input_tensor[:, state_size : state_size + num_edge]
        edge_index = edge_index_flat.reshape(input_tensor.shape[0], 2, -1).long()  # (2, num_edges)

        batch_size = input_tensor.shape[0]
        data_list = [Data(x=ggnn_input_x[i], edge_index=edge_index[i]) for i in range(batch_size)]
        batch_data = Batch.from_data_list(data_list)
        out = self.ggnn(batch_data.x, batch_data.edge_index)
        return out


def make_model():
    return Custom_GGNN().eval()


def _state(b):
    return torch.cat([torch.randn(b, 50), torch.randint(0, 5, (b, 40)).float()], dim=1)


def example_inputs():
    return (_state(2),)


def other_inputs():
    return [(_state(4),), (_state(1),)]


def probe_inputs():
    return other_inputs()
