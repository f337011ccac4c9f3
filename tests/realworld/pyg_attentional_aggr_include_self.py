"""PyG-style graph readout (AttentionalAggregation): the per-graph softmax takes a scatter max
written as `src.new_zeros(size).scatter_reduce_(dim, index, src, reduce='amax', include_self=False)`;
"ONNX does not support include_self=False for scatter_reduce".

Source: https://github.com/pyg-team/pytorch_geometric/issues/8415
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "nodes"}, "batch": {0: "nodes"}, "ptr": {0: "graphs_plus_one"}}
BLIND = "operators-1"


def broadcast(src, ref, dim):
    size = [1] * ref.dim()
    size[dim] = -1
    return src.view(size).expand_as(ref)


def scatter(src, index, dim, dim_size, reduce="sum"):
    size = list(src.size())
    size[dim] = dim_size
    index = broadcast(index, src, dim)
    if reduce == "sum":
        return src.new_zeros(size).scatter_add_(dim, index, src)
    return src.new_zeros(size).scatter_reduce_(dim, index, src, reduce=f"a{reduce}",
                                               include_self=False)


def softmax(src, index, num_nodes, dim=0):
    src_max = scatter(src.detach(), index, dim, dim_size=num_nodes, reduce="max")
    out = src - src_max.index_select(dim, index)
    out = out.exp()
    out_sum = scatter(out, index, dim, dim_size=num_nodes, reduce="sum") + 1e-16
    out_sum = out_sum.index_select(dim, index)
    return out / out_sum


class GNNReadout(nn.Module):
    def __init__(self, channels=10):
        super().__init__()
        self.lin = nn.Linear(channels, channels)
        self.gate_nn = nn.Linear(channels, 1)
        self.nn = nn.Linear(channels, channels)

    def forward(self, x, batch, ptr):
        dim_size = ptr.size(0) - 1
        x = torch.relu(self.lin(x))
        gate = self.gate_nn(x)
        h = self.nn(x)
        gate = softmax(gate, batch, dim_size, dim=0)
        return scatter(gate * h, batch, 0, dim_size=dim_size, reduce="sum")


def make_model():
    return GNNReadout()


def _inputs(n, g):
    batch = torch.sort(torch.randint(0, g, (n,))).values
    batch[:g] = torch.arange(g)
    batch = torch.sort(batch).values
    ptr = torch.zeros(g + 1, dtype=torch.long)
    return (torch.randn(n, 10), batch, ptr)


def example_inputs():
    return _inputs(100, 2)


def other_inputs():
    return [_inputs(37, 3), _inputs(60, 5)]


def probe_inputs():
    return other_inputs()
