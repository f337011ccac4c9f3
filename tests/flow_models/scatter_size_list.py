"""ONX203 on a size stored into a list: PyG's `scatter` sizes its output from the index values,
`dim_size = int(index.max()) + 1`, puts that into `size = list(src.size())` by `size[dim] = dim_size`
and allocates `src.new_zeros(size)`. The legacy exporter records the export-time node count, and
onnxruntime's ScatterElements then fails on a larger graph. Fixed safely: the number is kept a
tensor while the legacy exporter traces (a tensor element of a size list is traced as a size),
and eager and torch.export keep `int()`."""
import torch
from torch import nn


def scatter_mean(src, index, dim=0):
    dim_size = int(index.max()) + 1
    size = list(src.size())
    size[dim] = dim_size
    out = src.new_zeros(size).scatter_add_(dim, index.unsqueeze(-1).expand_as(src), src)
    count = src.new_zeros(dim_size).scatter_add_(0, index, torch.ones_like(index, dtype=src.dtype))
    return out / count.clamp(min=1).unsqueeze(-1)


class MeanAggregation(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, edge_index):
        messages = self.lin(x)[edge_index[0]]
        return scatter_mean(messages, edge_index[1])


def make_model():
    torch.manual_seed(0)
    return MeanAggregation()


def _graph(nodes, edges):
    torch.manual_seed(nodes)
    dst = torch.cat([torch.arange(nodes), torch.randint(0, nodes, (edges - nodes,))])
    return (torch.randn(nodes, 4), torch.stack([torch.randint(0, nodes, (edges,)), dst]))


def example_inputs():
    return _graph(5, 12)


def probe_inputs():
    return [_graph(9, 20), _graph(3, 7)]


DYNAMIC = {0: {0: "nodes"}, 1: {1: "edges"}}
