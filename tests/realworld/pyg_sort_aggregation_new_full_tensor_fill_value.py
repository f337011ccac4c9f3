"""PyG DGCNN readout (`SortAggregation` / global_sort_pool): the fill value for padding is a tensor,
`fill_value = x.detach().min() - 1`, and `to_dense_batch` pads with `x.new_full(size, fill_value)`.
The PR notes that `new_full` with a tensor fill value calls `.item()` under the hood, a graph break
for torch.compile; the batch size and max node count also come from `int(batch.max()) + 1` and
`int(num_nodes.max())`, so tracing bakes the padding value and the dense sizes.

Source: https://github.com/pyg-team/pytorch_geometric/pull/7537
"""
import torch
from torch import nn, Tensor

CLASS = "data-dependent-size"
FAMILY = "tensor_data"
DYNAMIC = {"x": {0: "nodes"}, "batch": {0: "nodes"}}
BLIND = "domains-71"


def scatter_sum(src: Tensor, index: Tensor, dim: int = 0, dim_size=None) -> Tensor:
    if dim_size is None:
        dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
    size = list(src.size())
    size[dim] = dim_size
    return src.new_zeros(size).scatter_add_(dim, index, src)


def to_dense_batch(x, batch=None, fill_value=0.0, max_num_nodes=None, batch_size=None):
    fill_value = 0.0 if fill_value is None else fill_value

    if batch is None and max_num_nodes is None:
        mask = torch.ones(1, x.size(0), dtype=torch.bool, device=x.device)
        return x.unsqueeze(0), mask

    if batch is None:
        batch = x.new_zeros(x.size(0), dtype=torch.long)

    if batch_size is None:
        batch_size = int(batch.max()) + 1

    num_nodes = scatter_sum(batch.new_ones(x.size(0)), batch, dim=0, dim_size=batch_size)
    cum_nodes = torch.cat([batch.new_zeros(1), num_nodes.cumsum(dim=0)])

    if max_num_nodes is None:
        max_num_nodes = int(num_nodes.max())

    idx = torch.arange(batch.size(0), device=x.device) - cum_nodes[batch]
    idx = idx + (batch * max_num_nodes)

    size = [batch_size * max_num_nodes] + list(x.size())[1:]
    out = x.new_full(size, fill_value)
    out[idx] = x
    out = out.view([batch_size, max_num_nodes] + list(x.size())[1:])

    mask = torch.zeros(batch_size * max_num_nodes, dtype=torch.bool, device=x.device)
    mask[idx] = 1
    mask = mask.view(batch_size, max_num_nodes)
    return out, mask


class SortAggregation(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x, index=None, dim_size=None, max_num_elements=None):
        fill_value = x.detach().min() - 1
        batch_x, _ = to_dense_batch(x, index, batch_size=dim_size, fill_value=fill_value,
                                    max_num_nodes=max_num_elements)
        B, N, D = batch_x.size()

        _, perm = batch_x[:, :, -1].sort(dim=-1, descending=True)
        arange = torch.arange(B, dtype=torch.long, device=perm.device) * N
        perm = perm + arange.view(-1, 1)

        batch_x = batch_x.view(B * N, D)
        batch_x = batch_x[perm]
        batch_x = batch_x.view(B, N, D)

        if N >= self.k:
            batch_x = batch_x[:, :self.k].contiguous()
        else:
            expand_batch_x = batch_x.new_full((B, self.k - N, D), fill_value)
            batch_x = torch.cat([batch_x, expand_batch_x], dim=1)

        batch_x[batch_x == fill_value] = 0
        x = batch_x.view(B, self.k * D)
        return x


class DGCNNReadout(nn.Module):
    def __init__(self, in_channels=8, hidden=16, k=6, num_classes=3):
        super().__init__()
        self.lin_in = nn.Linear(in_channels, hidden)
        self.pool = SortAggregation(k)
        self.classifier = nn.Linear(k * hidden, num_classes)

    def forward(self, x, batch):
        x = torch.tanh(self.lin_in(x))
        x = self.pool(x, batch)
        return self.classifier(x)


def make_model():
    return DGCNNReadout().eval()


def _graphs(sizes, channels=8):
    batch = torch.cat([torch.full((n,), i, dtype=torch.long) for i, n in enumerate(sizes)])
    return (torch.randn(batch.shape[0], channels), batch)


def example_inputs():
    return _graphs([7, 9, 8])


def other_inputs():
    return [_graphs([10, 5, 12, 7]), _graphs([11, 8])]


def probe_inputs():
    return other_inputs()
