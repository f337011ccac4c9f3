"""Graph attention on a particle/jet graph normalised with PyG's `softmax` (scatter with reduce='max'
to subtract the per-node maximum, then a scatter sum); the min/max scatter reduction has no ONNX export.

Source: https://github.com/onnx/onnx/issues/4322
"""
import torch
from torch import nn

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "operators-10"


def scatter(src, index, dim, dim_size, reduce="sum"):
    # torch_geometric.utils.scatter (pure-torch path)
    size = list(src.size())
    size[dim] = dim_size
    index = index.view(-1, *([1] * (src.dim() - 1))).expand_as(src)
    if reduce == "sum":
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce == "max":
        return src.new_zeros(size).scatter_reduce_(dim, index, src, reduce="amax", include_self=False)
    raise ValueError(reduce)


def softmax(src, index, num_nodes, dim=0):
    # torch_geometric.utils.softmax
    src_max = scatter(src.detach(), index, dim, dim_size=num_nodes, reduce="max")
    out = src - src_max.index_select(dim, index)
    out = out.exp()
    out_sum = scatter(out, index, dim, dim_size=num_nodes, reduce="sum") + 1e-16
    out_sum = out_sum.index_select(dim, index)
    return out / out_sum


class EdgeAttentionConv(nn.Module):
    def __init__(self, in_channels=6, out_channels=16, heads=2):
        super().__init__()
        self.heads, self.out_channels = heads, out_channels
        self.lin = nn.Linear(in_channels, heads * out_channels)
        self.att = nn.Parameter(torch.randn(1, heads, 2 * out_channels))

    def forward(self, x, edge_index):
        n = x.size(0)
        h = self.lin(x).view(n, self.heads, self.out_channels)
        src, dst = edge_index[0], edge_index[1]
        alpha = (torch.cat([h[dst], h[src]], dim=-1) * self.att).sum(-1)
        alpha = torch.nn.functional.leaky_relu(alpha, 0.2)
        alpha = softmax(alpha, dst, num_nodes=n)
        msg = h[src] * alpha.unsqueeze(-1)
        out = scatter(msg, dst, 0, dim_size=n, reduce="sum")
        return out.mean(dim=1)


def make_model():
    return EdgeAttentionConv()


def _graph(n, e):
    dst = torch.cat([torch.arange(n), torch.randint(0, n, (e - n,))])
    src = torch.randint(0, n, (e,))
    return (torch.randn(n, 6), torch.stack([src, dst]))


def example_inputs():
    return _graph(10, 30)


def other_inputs():
    return [_graph(17, 60), _graph(5, 9)]


def probe_inputs():
    return other_inputs()
