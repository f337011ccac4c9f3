"""Message-passing layer averaging neighbour messages with `Tensor.scatter_reduce(..., reduce="mean")`;
the PR that added ONNX export for `aten::scatter_reduce` states `reduce='mean'` is not supported
because ScatterElements has no mean reduction (TorchScript export raises "ONNX does not support
mean reduction for scatter_reduce").

Source: https://github.com/pytorch/pytorch/pull/102048
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "operators-63"


class MeanAggConv(nn.Module):
    def __init__(self, in_channels=8, out_channels=16):
        super().__init__()
        self.lin_msg = nn.Linear(in_channels, out_channels)
        self.lin_root = nn.Linear(in_channels, out_channels)

    def forward(self, x, edge_index):
        src, dst = edge_index[0], edge_index[1]
        msg = self.lin_msg(x)[src]                                   # (E, C)
        index = dst.unsqueeze(-1).expand_as(msg)
        out = torch.zeros(x.size(0), msg.size(1), dtype=msg.dtype)
        out = out.scatter_reduce(0, index, msg, reduce="mean", include_self=False)
        return torch.relu(out + self.lin_root(x))


def make_model():
    return MeanAggConv()


def _graph(n, e):
    x = torch.randn(n, 8)
    edge_index = torch.randint(0, n, (2, e))
    edge_index[1, :n] = torch.arange(n)      # every node receives at least one message
    return x, edge_index


def example_inputs():
    return _graph(10, 24)


def other_inputs():
    return [_graph(7, 15), _graph(13, 40)]


def probe_inputs():
    return other_inputs()
