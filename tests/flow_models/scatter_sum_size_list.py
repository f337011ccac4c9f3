"""ONX203 on a size computed into a list: torch_scatter's `scatter_sum` sets `size[dim] =
int(index.max()) + 1` in `size = list(src.size())` and allocates `torch.zeros(size)`. The legacy
exporter records the export-time node count, and onnxruntime's ScatterElements then fails on a
larger graph. Fixed unsafely (without run evidence of an int64 index): `index.max().long() + 1`,
a tensor element of the size list, which the legacy exporter traces as a size."""
import torch
from torch import nn


def scatter_sum(src, index, dim=0):
    size = list(src.size())
    size[dim] = int(index.max()) + 1
    out = torch.zeros(size, dtype=src.dtype)
    return out.scatter_add_(dim, index.unsqueeze(-1).expand_as(src), src)


class SumAggregation(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, edge_index):
        messages = self.lin(x)[edge_index[0]]
        return scatter_sum(messages, edge_index[1])


def make_model():
    torch.manual_seed(0)
    return SumAggregation()


def _graph(nodes, edges):
    torch.manual_seed(nodes)
    dst = torch.cat([torch.arange(nodes), torch.randint(0, nodes, (edges - nodes,))])
    return (torch.randn(nodes, 4), torch.stack([torch.randint(0, nodes, (edges,)), dst]))


def example_inputs():
    return _graph(5, 12)


def probe_inputs():
    return [_graph(9, 20), _graph(3, 7)]


DYNAMIC = {0: {0: "nodes"}, 1: {1: "edges"}}
