"""PyG's GATConv normalises attention with `torch_geometric.utils.softmax`, which needs a per-node scatter max;
as the thread says, that `scatter_max` is what blocks `torch.onnx.export` of GAT models, and the suggested
`torch.scatter_reduce(..., reduce='amax', include_self=False)` form is refused by the TorchScript exporter
("ONNX does not support include_self=False for scatter_reduce").

Source: https://github.com/pyg-team/pytorch_geometric/issues/728
"""
import torch
from torch import nn
import torch.nn.functional as F

CLASS = "operator"
FAMILY = "operators"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}}
BLIND = "operators-22"


def scatter(src, index, dim, dim_size, reduce="sum"):
    # torch_geometric.utils.scatter (torch >= 1.12 path)
    size = list(src.size())
    size[dim] = dim_size
    index = index.view(-1, 1).expand_as(src)
    if reduce == "sum":
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce == "max":
        return src.new_zeros(size).scatter_reduce_(dim, index, src, reduce="amax", include_self=False)
    raise ValueError(reduce)


def softmax(src, index, num_nodes):
    src_max = scatter(src.detach(), index, 0, num_nodes, reduce="max")
    out = src - src_max.index_select(0, index)
    out = out.exp()
    out_sum = scatter(out, index, 0, num_nodes, reduce="sum") + 1e-16
    out_sum = out_sum.index_select(0, index)
    return out / out_sum


class GATConv(nn.Module):
    def __init__(self, in_channels, out_channels, heads=2, negative_slope=0.2):
        super().__init__()
        self.heads, self.out_channels, self.negative_slope = heads, out_channels, negative_slope
        self.lin = nn.Linear(in_channels, heads * out_channels, bias=False)
        self.att_src = nn.Parameter(torch.randn(1, heads, out_channels) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(1, heads, out_channels) * 0.1)
        self.bias = nn.Parameter(torch.zeros(heads * out_channels))

    def forward(self, x, edge_index):
        H, C = self.heads, self.out_channels
        num_nodes = x.size(0)
        x = self.lin(x).view(-1, H, C)
        alpha_src = (x * self.att_src).sum(dim=-1)
        alpha_dst = (x * self.att_dst).sum(dim=-1)
        src, dst = edge_index[0], edge_index[1]
        alpha = alpha_src.index_select(0, src) + alpha_dst.index_select(0, dst)
        alpha = F.leaky_relu(alpha, self.negative_slope)
        alpha = softmax(alpha, dst, num_nodes)
        msg = x.index_select(0, src) * alpha.unsqueeze(-1)
        out = scatter(msg.view(-1, H * C), dst, 0, num_nodes, reduce="sum")
        return out + self.bias


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GATConv(16, 8, heads=2)
        self.conv2 = GATConv(16, 4, heads=1)

    def forward(self, x, edge_index):
        x = F.elu(self.conv1(x, edge_index))
        return self.conv2(x, edge_index)


def make_model():
    return GAT().eval()


def _graph(n, e):
    src = torch.randint(0, n, (e,))
    dst = torch.randint(0, n, (e,))
    loops = torch.arange(n)
    return torch.stack([torch.cat([src, loops]), torch.cat([dst, loops])])


def example_inputs():
    return (torch.randn(10, 16), _graph(10, 30))


def other_inputs():
    return [(torch.randn(17, 16), _graph(17, 52)), (torch.randn(6, 16), _graph(6, 9))]


def probe_inputs():
    return other_inputs()
