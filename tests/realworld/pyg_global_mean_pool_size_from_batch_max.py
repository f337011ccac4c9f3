"""PyG graph classifier: `global_mean_pool(x, batch)` without `size` takes the number of graphs from the
values, `size = int(batch.max().item() + 1)`; PyG added the `to_fixed_size` transformer because exported /
ahead-of-time compiled models "cannot rely on inferring the size from the max index used in the pooling".
(PyG's pure-torch `scatter` / `broadcast` helpers are copied in.)

Source: https://github.com/pyg-team/pytorch_geometric/pull/5939
"""
from typing import Optional

import torch
from torch import Tensor, nn

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "num_nodes"}, "edge_index": {1: "num_edges"}, "batch": {0: "num_nodes"}}
BLIND = "domains-6"


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    size = [1] * ref.dim()
    size[dim] = -1
    return src.view(size).expand_as(ref)


def scatter(src: Tensor, index: Tensor, dim: int = 0, dim_size: Optional[int] = None,
            reduce: str = 'sum') -> Tensor:
    dim = src.dim() + dim if dim < 0 else dim
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = list(src.size())
    size[dim] = dim_size
    if reduce == 'sum' or reduce == 'add':
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce == 'mean':
        count = src.new_zeros(dim_size)
        count.scatter_add_(0, index, src.new_ones(src.size(dim)))
        count = count.clamp(min=1)
        index = broadcast(index, src, dim)
        out = src.new_zeros(size).scatter_add_(dim, index, src)
        return out / broadcast(count, out, dim)
    raise ValueError(f"Encountered invalid `reduce` argument '{reduce}'")


def global_mean_pool(x: Tensor, batch: Optional[Tensor], size: Optional[int] = None) -> Tensor:
    dim = -1 if x.dim() == 1 else -2
    if batch is None:
        return x.mean(dim=dim, keepdim=x.dim() <= 2)
    size = int(batch.max().item() + 1) if size is None else size
    return scatter(x, batch, dim=dim, dim_size=size, reduce='mean')


class GNN(nn.Module):
    def __init__(self, in_channels=8, hidden_channels=16, num_classes=3):
        super().__init__()
        self.lin1 = nn.Linear(in_channels, hidden_channels)
        self.lin2 = nn.Linear(hidden_channels, hidden_channels)
        self.classifier = nn.Linear(hidden_channels, num_classes)

    def forward(self, x, edge_index, batch):
        row, col = edge_index
        h = self.lin1(x)
        h = (h + scatter(h[row], col, dim=0, dim_size=x.size(0), reduce='sum')).relu()
        h = self.lin2(h)
        h = (h + scatter(h[row], col, dim=0, dim_size=x.size(0), reduce='sum')).relu()
        x = global_mean_pool(h, batch)
        return self.classifier(x)


def _graphs(sizes):
    # ring graphs, both directions, batched PyG-style
    src, dst, batch, off = [], [], [], 0
    for g, n in enumerate(sizes):
        for i in range(n):
            j = (i + 1) % n
            src += [off + i, off + j]
            dst += [off + j, off + i]
        batch += [g] * n
        off += n
    return torch.randn(off, 8), torch.tensor([src, dst]), torch.tensor(batch)


def make_model():
    return GNN()


def example_inputs():
    return _graphs([4, 5, 3])


def other_inputs():
    return [_graphs([6, 3, 4, 5, 3]), _graphs([7]), _graphs([3, 3])]


def probe_inputs():
    return other_inputs()
