"""ONX201 on a number passed on as a size: PyG's `global_add_pool` counts the graphs with
`int(batch.max().item() + 1)` and passes that to `scatter_sum(..., dim_size=size)`, which reads it
only as a size (and tests it against None). The legacy exporter records the export-time graph
count, and onnxruntime's ScatterElements fails on a batch of more graphs. Fixed safely: while the
legacy exporter traces, `size` is the 0-d tensor `(batch.max() + 1).long()`, which the callee's
`new_zeros` traces as a size; eager and torch.export keep the number."""
import torch
from torch import nn


def scatter_sum(src, index, dim_size=None):
    if dim_size is None:
        dim_size = src.size(0)
    out = src.new_zeros((dim_size, src.size(1)))
    return out.scatter_add_(0, index[:, None].expand_as(src), src)


def global_add_pool(x, batch, size=None):
    size = int(batch.max().item() + 1) if size is None else size
    return scatter_sum(x, batch, dim_size=size)


class GraphReadout(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, batch):
        return self.lin(global_add_pool(x, batch))


def make_model():
    torch.manual_seed(0)
    return GraphReadout()


def _graphs(sizes):
    torch.manual_seed(len(sizes))
    batch = torch.cat([torch.full((n,), g) for g, n in enumerate(sizes)])
    return (torch.randn(len(batch), 4), batch)


def example_inputs():
    return _graphs([3, 2])


def probe_inputs():
    return [_graphs([2, 4, 1]), _graphs([5])]


DYNAMIC = {0: {0: "nodes"}, 1: {0: "nodes"}}
